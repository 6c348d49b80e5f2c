"""Who may do what with a draft: team roles, with the owner rule for drafts without a team."""

from __future__ import annotations

from django.db.models import F, Q

from policyeditor.editor.models import Draft, DraftQuerySet
from policyeditor.review.models import DraftWorkflow, ImpactRun
from policyeditor.teams.models import Membership, Role, Team, TeamQuota
from policyeditor.teams.roles import is_signed_in, ranks_at_least, role_in


def team_of(draft: Draft) -> Team | None:
    """The draft's team, or None for a personal draft."""
    try:
        return draft.workflow.team
    except DraftWorkflow.DoesNotExist:
        return None


def _draft_role(user, draft: Draft) -> str | None:
    """The user's effective role on a draft; the owner of a personal draft acts as its admin."""
    if not is_signed_in(user):
        return None
    team = team_of(draft)
    if team is None:
        return Role.ADMIN if draft.owner_id == user.pk else None
    return role_in(user, team)


def _at_least(user, draft: Draft, role: str) -> bool:
    return ranks_at_least(_draft_role(user, draft), role)


def can_view(user, draft: Draft) -> bool:
    """Read the draft, its revisions, diffs and comments: any team member (or the owner, or staff)."""
    if not is_signed_in(user):
        return False
    return bool(user.is_staff) or _draft_role(user, draft) is not None


def can_comment(user, draft: Draft) -> bool:
    """Comment on the draft: every role, viewers included."""
    return _draft_role(user, draft) is not None


def can_edit(user, draft: Draft) -> bool:
    """Save revisions, request review, manage test cases: authors and above."""
    return _at_least(user, draft, Role.AUTHOR)


def can_review(user, draft: Draft) -> bool:
    """Approve or request changes (the last author rule is checked by the workflow)."""
    return team_of(draft) is not None and _at_least(user, draft, Role.REVIEWER)


def can_delete(user, draft: Draft) -> bool:
    """Delete the draft: its owner, a team admin, or staff (only if they can see it)."""
    if not can_view(user, draft):
        return False
    return bool(user.is_staff) or draft.owner_id == user.pk or _at_least(user, draft, Role.ADMIN)


def can_start_impact(user, draft: Draft) -> bool:
    """Start an impact run on the draft: authors and above (it stores a dump and uses workers)."""
    return can_edit(user, draft)


def can_cancel_impact(user, run: ImpactRun) -> bool:
    """Cancel an impact run: whoever started it, or whoever may delete the draft."""
    if not can_view(user, run.draft):
        return False
    return (is_signed_in(user) and run.created_by_id == user.pk) or can_delete(user, run.draft)


def visible_drafts(user) -> DraftQuerySet:
    """Every draft `user` may view: personal drafts they own and drafts of their teams."""
    if not is_signed_in(user):
        return Draft.objects.none()
    if user.is_staff:
        return Draft.objects.all()
    teams = Membership.objects.filter(user=user).values("team_id")
    return Draft.objects.filter(
        Q(workflow__isnull=True, owner=user) | Q(workflow__team_id__in=teams)
    )


def visible_draft(user, pk: int, *, documents: bool = True) -> Draft:
    """Draft `pk` if `user` may view it (the rule of visible_drafts, on one row), else DoesNotExist.

    `documents=False` leaves the documents JSON unread (loaded if the caller reads it after all).
    """
    # One simple query instead of visible_drafts' OR over a join and a subquery, whose building
    # alone cost more than the query on every draft URL (bench_live_validation.py).
    if not is_signed_in(user):
        raise Draft.DoesNotExist("No such draft")
    drafts = Draft.objects.select_related("owner").annotate(visible_team_id=F("workflow__team_id"))
    draft = (drafts if documents else drafts.defer("documents")).get(pk=pk)
    team_id = draft.visible_team_id
    if user.is_staff:
        return draft
    if team_id is None and draft.owner_id == user.pk:
        return draft
    if team_id is not None and Membership.objects.filter(user=user, team_id=team_id).exists():
        return draft
    raise Draft.DoesNotExist("No such draft")


def team_storage(draft: Draft) -> tuple[str, DraftQuerySet, TeamQuota | None] | None:
    """For the storage quota: the draft's team name, the team's drafts and its quota override."""
    team = team_of(draft)
    if team is None:
        return None
    return (
        team.name,
        Draft.objects.filter(workflow__team=team),
        TeamQuota.objects.filter(team=team).first(),
    )
