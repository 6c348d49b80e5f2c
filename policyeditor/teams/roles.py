"""Who is in which team with which role."""

from __future__ import annotations

from django.db.models import QuerySet

from policyeditor.teams.models import ROLE_RANK, Membership, Role, Team


def is_signed_in(user) -> bool:
    """Whether `user` is an active, authenticated user (anonymous users hold no role)."""
    return bool(getattr(user, "is_authenticated", False)) and getattr(user, "is_active", True)


def role_in(user, team: Team | None) -> str | None:
    """The user's role in `team`, or None when not a member."""
    if team is None or not is_signed_in(user):
        return None
    return Membership.objects.filter(team=team, user=user).values_list("role", flat=True).first()


def ranks_at_least(held: str | None, role: str) -> bool:
    """Whether the role `held` (None: no role) is `role` or a higher one."""
    return held is not None and ROLE_RANK[Role(held)] >= ROLE_RANK[Role(role)]


def has_role(user, team: Team | None, role: str) -> bool:
    """Whether the user holds `role` or a higher one in `team`."""
    return ranks_at_least(role_in(user, team), role)


def can_manage(user, team: Team) -> bool:
    """Add and remove members, change the team's rules: team admins and staff."""
    return is_signed_in(user) and (bool(user.is_staff) or has_role(user, team, Role.ADMIN))


def teams_of(user) -> QuerySet[Team]:
    """The teams the user belongs to."""
    if not is_signed_in(user):
        return Team.objects.none()
    return Team.objects.filter(memberships__user=user).distinct()
