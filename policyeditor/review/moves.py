"""Moving a draft from one team to another: the team it leaves must agree, and its review restarts.

A draft belongs to its team: the team's admin can delete it and its members read its comments and
impact results. So a draft leaves a team only by that team's admin, or at its owner's request once
an admin of the team approves; the review state earned in the old team (approvals, the approved
revision, "changes requested") does not travel, and both teams' audit logs record the move.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from policyeditor.editor.models import Draft, Status
from policyeditor.review import audit
from policyeditor.review.models import Action, DraftWorkflow, Review
from policyeditor.review.permissions import can_edit
from policyeditor.teams.errors import NotAllowed, WorkflowError
from policyeditor.teams.models import Role, Team
from policyeditor.teams.roles import can_manage, has_role


def team_admins(team: Team) -> list:
    """The admins of `team` (who approve moves out of it)."""
    return [m.user for m in team.memberships.filter(role=Role.ADMIN).select_related("user")]


def check_destination(user, draft: Draft, team: Team) -> None:
    """Refuse unless `user` edits the draft and is an author of `team`."""
    if not can_edit(user, draft) or not has_role(user, team, Role.AUTHOR):
        raise NotAllowed("You must be an author of this draft and of the team.")


def move_or_request(user, draft: Draft, workflow: DraftWorkflow, team: Team) -> DraftWorkflow:
    """Move a team's draft to `team` (its admins) or ask the admins to approve (its owner)."""
    check_destination(user, draft, team)
    if draft.status == Status.IN_REVIEW:
        raise WorkflowError("A draft in review cannot move to another team.")
    source = workflow.team
    if can_manage(user, source):
        return _move(user, draft, workflow, team)
    if draft.owner_id != user.pk:
        raise NotAllowed(
            f"Only an admin of {source.name}, or the draft's owner with an admin's approval, "
            "can move it out of the team."
        )
    workflow.move_to = team
    workflow.move_requested_by = user
    workflow.move_requested_at = timezone.now()
    workflow.save(update_fields=["move_to", "move_requested_by", "move_requested_at", "updated"])
    audit.record(
        Action.MOVE_REQUESTED,
        actor=user,
        draft=draft,
        team=source,
        detail={"to": team.name},
        notify=team_admins(source),
    )
    return workflow


@transaction.atomic
def approve_move(user, draft: Draft) -> DraftWorkflow:
    """An admin of the draft's team approves its owner's pending move request."""
    draft = Draft.objects.select_for_update().get(pk=draft.pk)
    workflow = _pending(draft)
    if not can_manage(user, workflow.team):
        raise NotAllowed(f"Only an admin of {workflow.team.name} can approve this move.")
    requester, target = workflow.move_requested_by, workflow.move_to
    assert target is not None  # _pending checked it
    # The requester's rights are checked again: they may have lost them since asking.
    if requester is None or requester.pk != draft.owner_id:
        raise WorkflowError("The move was asked by someone who no longer owns the draft.")
    if draft.status == Status.IN_REVIEW:
        raise WorkflowError("A draft in review cannot move to another team.")
    check_destination(requester, draft, target)
    return _move(user, draft, workflow, target, requested_by=requester)


@transaction.atomic
def decline_move(user, draft: Draft) -> DraftWorkflow:
    """An admin of the team declines a pending move request, or its requester takes it back."""
    draft = Draft.objects.select_for_update().get(pk=draft.pk)
    workflow = _pending(draft)
    if not can_manage(user, workflow.team) and workflow.move_requested_by_id != user.pk:
        raise NotAllowed(f"Only an admin of {workflow.team.name} or the requester can decline.")
    target = workflow.move_to
    requester = workflow.move_requested_by
    _clear_request(workflow)
    audit.record(
        Action.MOVE_DECLINED,
        actor=user,
        draft=draft,
        team=workflow.team,
        detail={"to": target.name if target else ""},
        notify=[requester],
    )
    return workflow


def _pending(draft: Draft) -> DraftWorkflow:
    workflow = DraftWorkflow.objects.select_related("team", "move_to", "move_requested_by").filter(
        draft=draft
    )
    found = workflow.first()
    if found is None or found.move_to is None:
        raise WorkflowError("No move of this draft is waiting for approval.")
    return found


def _clear_request(workflow: DraftWorkflow) -> None:
    workflow.move_to = None
    workflow.move_requested_by = None
    workflow.move_requested_at = None
    workflow.save(update_fields=["move_to", "move_requested_by", "move_requested_at", "updated"])


def _move(
    user, draft: Draft, workflow: DraftWorkflow, team: Team, *, requested_by=None
) -> DraftWorkflow:
    """Move the draft, withdraw the old team's decisions and record the move on both sides."""
    source = workflow.team
    Review.objects.filter(draft=draft, withdrawn=False).update(withdrawn=True)
    if draft.status in (Status.APPROVED, Status.CHANGES_REQUESTED):
        # A plain UPDATE of one column, as the workflow does: never overwrites saved documents.
        Draft.objects.filter(pk=draft.pk).update(status=Status.DRAFT)
        draft.status = Status.DRAFT
    workflow.team = team
    workflow.approved_revision = None
    workflow.review_requested_by = None
    workflow.review_requested_at = None
    workflow.save(
        update_fields=["team", "approved_revision", "review_requested_by", "review_requested_at"]
    )
    _clear_request(workflow)
    detail = {"from": source.name, "to": team.name}
    if requested_by is not None:
        detail["requested_by"] = requested_by.get_username()
    audit.record(
        Action.MOVED_OUT,
        actor=user,
        draft=draft,
        team=source,
        detail=detail,
        notify=[draft.owner, requested_by],
    )
    audit.record(Action.TEAM_ASSIGNED, actor=user, draft=draft, team=team, detail=detail)
    return workflow
