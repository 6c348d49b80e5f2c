"""Team management: members, roles and the approval rule; team admins (and staff) only."""

from __future__ import annotations

from django.db import transaction

from policyeditor.teams import signals
from policyeditor.teams.errors import NotAllowed, WorkflowError
from policyeditor.teams.models import Membership, Role, Team
from policyeditor.teams.roles import can_manage

LAST_ADMIN = "A team keeps at least one admin: make someone else admin first."


@transaction.atomic
def add_member(user, team: Team, member, role: str) -> Membership:
    """Add `member` to `team` with `role` (or change their role); team admins only."""
    if not can_manage(user, team):
        raise NotAllowed("Only team admins manage members.")
    if role not in Role.values:
        raise WorkflowError(f"Unknown role {role!r}; one of {', '.join(Role.values)}.")
    _lock(team)
    current = Membership.objects.filter(team=team, user=member).first()
    if current is not None and current.role == Role.ADMIN and role != Role.ADMIN:
        _keep_an_admin(team)
    membership, _ = Membership.objects.update_or_create(
        team=team, user=member, defaults={"role": role}
    )
    signals.member_added.send(Team, actor=user, team=team, member=member, role=role)
    return membership


@transaction.atomic
def remove_member(user, team: Team, member) -> None:
    """Remove `member` from `team`; team admins only, and never the last admin."""
    if not can_manage(user, team):
        raise NotAllowed("Only team admins manage members.")
    _lock(team)
    membership = Membership.objects.filter(team=team, user=member).first()
    if membership is None:
        return
    if membership.role == Role.ADMIN:
        _keep_an_admin(team)
    membership.delete()
    signals.member_removed.send(Team, actor=user, team=team, member=member)


def _lock(team: Team) -> None:
    # Two admins demoting each other at once must not both pass the "another admin" check.
    Team.objects.select_for_update().filter(pk=team.pk).first()


def _keep_an_admin(team: Team) -> None:
    """Refuse when the admin about to go is the team's only one."""
    if team.memberships.filter(role=Role.ADMIN).count() <= 1:
        raise WorkflowError(LAST_ADMIN)


def set_required_approvals(user, team: Team, count) -> Team:
    """Change how many approvals a review in `team` needs (1-10); team admins only."""
    if not can_manage(user, team):
        raise NotAllowed("Only team admins change the team's rules.")
    try:
        count = int(count)
    except (TypeError, ValueError):
        raise WorkflowError("Required approvals must be a number.") from None
    if not 1 <= count <= 10:
        raise WorkflowError("Required approvals must be between 1 and 10.")
    team.required_approvals = count
    team.save(update_fields=["required_approvals"])
    signals.rules_changed.send(Team, actor=user, team=team)
    return team
