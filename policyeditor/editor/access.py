"""Who may see and save which draft: every view and API endpoint fetches drafts through here."""

# Without teams a draft is its owner's (staff see everything). An app built on the editor may
# register other rules (editor.extensions.DraftAccess); the review app's team rules decide then
# (team members see a team's drafts, authors and above save them).

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.http import Http404

from policyeditor.editor import extensions
from policyeditor.editor.models import Draft, DraftQuerySet


def visible_drafts(user) -> DraftQuerySet:
    """Every draft `user` may see."""
    rules = extensions.access()
    if rules is not None:
        return rules.visible_drafts(user)
    return Draft.objects.visible_to(user)


def get_draft_for(user, pk, *, documents: bool = True) -> Draft:
    """The draft `pk` if `user` may see it, else Http404 (never 403: no leak of existence).

    `documents=False` is for views that never read the stored documents (live validation).
    """
    rules = extensions.access()
    try:
        if rules is not None:
            return rules.visible_draft(user, int(pk), documents=documents)
        drafts = Draft.objects.visible_to(user).select_related("owner")
        return (drafts if documents else drafts.defer("documents")).get(pk=int(pk))
    except (Draft.DoesNotExist, ValueError, TypeError, OverflowError) as exc:
        raise Http404("No such draft") from exc


def can_edit(user, draft: Draft) -> bool:
    """Whether `user` may save new revisions of a draft they can see."""
    rules = extensions.access()
    if rules is not None:
        # Authors and above in the draft's team (the owner of a personal draft).
        return rules.can_edit(user, draft)
    return draft.owner_id == user.pk


def get_editable_draft_for(user, pk) -> Draft:
    """The draft `pk` if `user` may save it; Http404 if they cannot see it, 403 if read-only."""
    draft = get_draft_for(user, pk)
    if not can_edit(user, draft):
        raise PermissionDenied("Your role in this draft's team is read-only.")
    return draft


def team_storage(draft: Draft):
    """The draft's team name, the team's drafts and its quota override; None without a team."""
    rules = extensions.access()
    if rules is None or rules.team_storage is None:
        return None
    return rules.team_storage(draft)
