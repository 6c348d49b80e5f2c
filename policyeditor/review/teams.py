"""Team management: members, roles and the approval rule; team admins (and staff) only."""

from __future__ import annotations

from policyeditor.review import audit
from policyeditor.review.models import Action, Membership, Role, Team
from policyeditor.review.permissions import can_manage
from policyeditor.review.workflow import NotAllowed, WorkflowError


def add_member(user, team: Team, member, role: str) -> Membership:
    """Add `member` to `team` with `role` (or change their role); team admins only."""
    if not can_manage(user, team):
        raise NotAllowed("Only team admins manage members.")
    if role not in Role.values:
        raise WorkflowError(f"Unknown role {role!r}; one of {', '.join(Role.values)}.")
    membership, _ = Membership.objects.update_or_create(
        team=team, user=member, defaults={"role": role}
    )
    audit.record(
        Action.MEMBER_ADDED,
        actor=user,
        team=team,
        detail={"member": member.get_username(), "role": role},
        notify=[member],
    )
    return membership


def remove_member(user, team: Team, member) -> None:
    """Remove `member` from `team`; team admins only, and never the last admin."""
    if not can_manage(user, team):
        raise NotAllowed("Only team admins manage members.")
    membership = Membership.objects.filter(team=team, user=member).first()
    if membership is None:
        return
    admins = team.memberships.filter(role=Role.ADMIN)
    if membership.role == Role.ADMIN and admins.count() == 1:
        raise WorkflowError("A team keeps at least one admin.")
    membership.delete()
    audit.record(
        Action.MEMBER_REMOVED, actor=user, team=team, detail={"member": member.get_username()}
    )


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
    audit.record(Action.TEAM_CHANGED, actor=user, team=team, detail={"required_approvals": count})
    return team
