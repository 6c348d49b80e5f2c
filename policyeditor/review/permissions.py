"""Who may do what with a draft: team roles, with the owner rule for drafts without a team."""

from __future__ import annotations

from django.db.models import F, Q, QuerySet

from policyeditor.editor.models import Draft
from policyeditor.review.models import (
    ROLE_RANK,
    DraftWorkflow,
    Membership,
    Role,
    Team,
    TeamQuota,
)


def _authenticated(user) -> bool:
    return bool(getattr(user, "is_authenticated", False)) and getattr(user, "is_active", True)


def team_of(draft: Draft) -> Team | None:
    """The draft's team, or None for a personal draft."""
    try:
        return draft.workflow.team
    except DraftWorkflow.DoesNotExist:
        return None


def role_in(user, team: Team | None) -> str | None:
    """The user's role in `team`, or None when not a member."""
    if team is None or not _authenticated(user):
        return None
    return Membership.objects.filter(team=team, user=user).values_list("role", flat=True).first()


def has_role(user, team: Team | None, role: str) -> bool:
    """Whether the user holds `role` or a higher one in `team`."""
    held = role_in(user, team)
    return held is not None and ROLE_RANK[Role(held)] >= ROLE_RANK[Role(role)]


def _draft_role(user, draft: Draft) -> str | None:
    """The user's effective role on a draft; the owner of a personal draft acts as its admin."""
    if not _authenticated(user):
        return None
    team = team_of(draft)
    if team is None:
        return Role.ADMIN if draft.owner_id == user.pk else None
    return role_in(user, team)


def _at_least(user, draft: Draft, role: str) -> bool:
    held = _draft_role(user, draft)
    return held is not None and ROLE_RANK[Role(held)] >= ROLE_RANK[Role(role)]


def can_view(user, draft: Draft) -> bool:
    """Read the draft, its revisions, diffs and comments: any team member (or the owner, or staff)."""
    if not _authenticated(user):
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


def can_manage(user, team: Team) -> bool:
    """Add and remove members, change the team's rules: team admins and staff."""
    return _authenticated(user) and (bool(user.is_staff) or has_role(user, team, Role.ADMIN))


def visible_drafts(user) -> QuerySet[Draft]:
    """Every draft `user` may view: personal drafts they own and drafts of their teams."""
    if not _authenticated(user):
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
    if not _authenticated(user):
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


def teams_of(user) -> QuerySet[Team]:
    """The teams the user belongs to."""
    if not _authenticated(user):
        return Team.objects.none()
    return Team.objects.filter(memberships__user=user).distinct()


def team_members(team: Team | None) -> QuerySet:
    """Usernames of a team's members, for @mentions."""
    if team is None:
        return Membership.objects.none()
    return Membership.objects.filter(team=team).select_related("user")


def team_storage(draft: Draft) -> tuple[str, QuerySet[Draft], TeamQuota | None] | None:
    """For the storage quota: the draft's team name, the team's drafts and its quota override."""
    team = team_of(draft)
    if team is None:
        return None
    return (
        team.name,
        Draft.objects.filter(workflow__team=team),
        TeamQuota.objects.filter(team=team).first(),
    )
