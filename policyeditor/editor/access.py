"""Who may see which draft: every view and API endpoint fetches drafts through here."""

from __future__ import annotations

from django.http import Http404

from policyeditor.editor.models import Draft


def get_draft_for(user, pk) -> Draft:
    """The draft `pk` if `user` may see it (owner, team member or staff), else Http404 (no leak)."""
    # Team membership decides for team drafts; drafts without a team keep the owner rule.
    from policyeditor.review.permissions import visible_drafts

    try:
        return visible_drafts(user).select_related("owner").get(pk=int(pk))
    except (Draft.DoesNotExist, ValueError, TypeError, OverflowError) as exc:
        raise Http404("No such draft") from exc


def can_edit(user, draft: Draft) -> bool:
    """Whether `user` may save revisions of a draft they can see (authors and above in its team)."""
    from policyeditor.review.permissions import can_edit as review_can_edit

    return review_can_edit(user, draft)


def get_editable_draft_for(user, pk) -> Draft:
    """The draft `pk` if `user` may save it; Http404 if they cannot see it, 403 if read-only."""
    from django.core.exceptions import PermissionDenied

    draft = get_draft_for(user, pk)
    if not can_edit(user, draft):
        raise PermissionDenied("Your role in this draft's team is read-only.")
    return draft
