"""Who may see and save which draft: every view and API endpoint fetches drafts through here."""

# Without teams a draft is its owner's (staff see everything). When the review app is installed
# its team rules decide instead (team members see a team's drafts, authors and above save them);
# it is imported lazily because the review app builds on this one, not the other way round.

from __future__ import annotations

from django.db.models import QuerySet
from django.http import Http404

from policyeditor.editor.models import Draft


def _review_permissions():
    """The review app's permission module, or None when it is not installed."""
    try:
        from policyeditor.review import permissions
    except ImportError:
        return None
    return permissions


def visible_drafts(user) -> QuerySet[Draft]:
    """Every draft `user` may see."""
    permissions = _review_permissions()
    if permissions is not None:
        return permissions.visible_drafts(user)
    return Draft.objects.visible_to(user)


def get_draft_for(user, pk, *, documents: bool = True) -> Draft:
    """The draft `pk` if `user` may see it, else Http404 (never 403: no leak of existence).

    `documents=False` is for views that never read the stored documents (live validation).
    """
    permissions = _review_permissions()
    try:
        if permissions is not None:
            return permissions.visible_draft(user, int(pk), documents=documents)
        drafts = Draft.objects.visible_to(user).select_related("owner")
        return (drafts if documents else drafts.defer("documents")).get(pk=int(pk))
    except (Draft.DoesNotExist, ValueError, TypeError, OverflowError) as exc:
        raise Http404("No such draft") from exc


def can_edit(user, draft: Draft) -> bool:
    """Whether `user` may save new revisions of a draft they can see."""
    permissions = _review_permissions()
    if permissions is not None:
        # Authors and above in the draft's team (the owner of a personal draft).
        return permissions.can_edit(user, draft)
    return draft.owner_id == user.pk


def get_editable_draft_for(user, pk) -> Draft:
    """The draft `pk` if `user` may save it; Http404 if they cannot see it, 403 if read-only."""
    from django.core.exceptions import PermissionDenied

    draft = get_draft_for(user, pk)
    if not can_edit(user, draft):
        raise PermissionDenied("Your role in this draft's team is read-only.")
    return draft


def team_storage(draft: Draft):
    """The draft's team name, the team's drafts and its quota override; None without a team."""
    permissions = _review_permissions()
    if permissions is None:
        return None
    return permissions.team_storage(draft)
