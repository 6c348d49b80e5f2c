"""Tests for review transitions, including every forbidden one."""

from __future__ import annotations

import pytest

from policyeditor.editor.models import Status
from policyeditor.editor.services import create_draft
from policyeditor.review import workflow
from policyeditor.review.models import Action, AuditEvent, Decision
from policyeditor.review.workflow import NotAllowed, WorkflowError
from tests.review.conftest import approved_then_edited, edit

pytestmark = pytest.mark.django_db


def _status(draft) -> str:
    draft.refresh_from_db()
    return draft.status


def test_the_full_cycle_draft_review_changes_edit_review_approve(draft, alice, bob):
    workflow.request_review(alice, draft)
    assert _status(draft) == Status.IN_REVIEW
    workflow.request_changes(bob, draft, revision_number=1, body="limit 3 please")
    assert _status(draft) == Status.CHANGES_REQUESTED
    edit(draft, alice, 3)
    assert _status(draft) == Status.CHANGES_REQUESTED
    workflow.request_review(alice, draft)
    review = workflow.approve(bob, draft, revision_number=2)
    assert review.decision == Decision.APPROVE
    assert _status(draft) == Status.APPROVED
    assert workflow.approved_revision(draft).number == 2
    actions = list(AuditEvent.objects.for_draft(draft.pk).values_list("action", flat=True))
    assert actions[::-1] == [
        Action.CREATED,
        Action.TEAM_ASSIGNED,
        Action.REVIEW_REQUESTED,
        Action.CHANGES_REQUESTED,
        Action.EDITED,
        Action.REVIEW_REQUESTED,
        Action.APPROVED,
    ]


def test_an_author_cannot_approve_their_own_revision_even_as_a_reviewer(draft, alice, bob):
    edit(draft, bob, 4)  # bob wrote revision 2
    workflow.request_review(alice, draft)
    with pytest.raises(NotAllowed, match="someone else"):
        workflow.approve(bob, draft, revision_number=2)
    assert _status(draft) == Status.IN_REVIEW


def test_an_author_role_cannot_approve_or_request_changes(draft, alice, dave):
    edit(draft, dave, 4)
    workflow.request_review(alice, draft)
    with pytest.raises(NotAllowed):
        workflow.approve(alice, draft, revision_number=2)
    with pytest.raises(NotAllowed):
        workflow.request_changes(alice, draft, revision_number=2, body="no")


def test_a_viewer_can_neither_request_review_nor_review(draft, alice, carol):
    with pytest.raises(NotAllowed):
        workflow.request_review(carol, draft)
    workflow.request_review(alice, draft)
    with pytest.raises(NotAllowed):
        workflow.approve(carol, draft, revision_number=1)


def test_a_user_of_another_team_cannot_touch_the_draft(draft, alice, eve, other_team):
    with pytest.raises(NotAllowed):
        workflow.request_review(eve, draft)
    workflow.request_review(alice, draft)
    with pytest.raises(NotAllowed):
        workflow.approve(eve, draft, revision_number=1)


def test_approving_a_draft_that_is_not_in_review_is_refused(draft, bob):
    with pytest.raises(WorkflowError, match="not in review"):
        workflow.approve(bob, draft, revision_number=1)


def test_approving_a_stale_revision_is_refused_after_an_edit_in_review(draft, alice, bob):
    workflow.request_review(alice, draft)
    edit(draft, alice, 4)
    with pytest.raises(WorkflowError, match="no longer the latest"):
        workflow.approve(bob, draft, revision_number=1)
    workflow.approve(bob, draft, revision_number=2)
    assert workflow.approved_revision(draft).number == 2


def test_requesting_changes_needs_a_reason(draft, alice, bob):
    workflow.request_review(alice, draft)
    with pytest.raises(WorkflowError, match="what should change"):
        workflow.request_changes(bob, draft, revision_number=1, body="  ")


def test_requesting_review_twice_or_without_a_team_is_refused(draft, alice):
    workflow.request_review(alice, draft)
    with pytest.raises(WorkflowError, match="already in review"):
        workflow.request_review(alice, draft)
    personal = create_draft(alice, [], name="personal")
    with pytest.raises(WorkflowError, match="no team"):
        workflow.request_review(alice, personal)


def test_editing_an_approved_draft_starts_a_new_draft_revision_and_keeps_the_approved_one(
    draft, alice, bob
):
    approved_then_edited(draft, alice, bob, 7)
    assert _status(draft) == Status.DRAFT
    approved = workflow.approved_revision(draft)
    assert approved.number == 1
    assert "<= 5" in workflow.export_approved(alice, draft)[1]


def test_nothing_to_review_when_the_latest_revision_is_the_approved_one(draft, alice, bob):
    workflow.request_review(alice, draft)
    workflow.approve(bob, draft, revision_number=1)
    with pytest.raises(WorkflowError, match="Nothing changed"):
        workflow.request_review(alice, draft)


def test_a_team_rule_of_two_approvals_needs_two_distinct_reviewers(draft, team, alice, bob, dave):
    team.required_approvals = 2
    team.save()
    workflow.request_review(alice, draft)
    workflow.approve(bob, draft, revision_number=1)
    assert _status(draft) == Status.IN_REVIEW
    with pytest.raises(WorkflowError, match="already approved"):
        workflow.approve(bob, draft, revision_number=1)
    workflow.approve(dave, draft, revision_number=1)
    assert _status(draft) == Status.APPROVED


def test_an_edit_in_review_dismisses_earlier_approvals(draft, team, alice, bob, dave):
    team.required_approvals = 2
    team.save()
    approved_then_edited(draft, alice, bob, 4)
    workflow.approve(dave, draft, revision_number=2)
    assert _status(draft) == Status.IN_REVIEW  # bob's approval was of revision 1


def test_withdrawing_a_review_returns_to_draft(draft, alice, carol):
    workflow.request_review(alice, draft)
    with pytest.raises(NotAllowed):
        workflow.withdraw_review(carol, draft)
    workflow.withdraw_review(alice, draft)
    assert _status(draft) == Status.DRAFT


def test_review_requests_notify_reviewers_and_decisions_notify_the_author(draft, alice, bob, dave):
    workflow.request_review(alice, draft)
    assert bob.review_notifications.filter(event__action=Action.REVIEW_REQUESTED).exists()
    assert dave.review_notifications.filter(event__action=Action.REVIEW_REQUESTED).exists()
    assert not alice.review_notifications.filter(event__action=Action.REVIEW_REQUESTED).exists()
    workflow.request_changes(bob, draft, revision_number=1, body="please")
    assert alice.review_notifications.filter(event__action=Action.CHANGES_REQUESTED).exists()


def test_waiting_reviews_lists_drafts_a_reviewer_has_not_decided_on(draft, alice, bob, carol):
    assert list(workflow.waiting_reviews(bob)) == []
    workflow.request_review(alice, draft)
    assert list(workflow.waiting_reviews(bob)) == [draft]
    assert list(workflow.waiting_reviews(carol)) == []  # viewers do not review
    assert list(workflow.waiting_reviews(alice)) == []  # authors do not review their own
    workflow.request_changes(bob, draft, revision_number=1, body="x")
    workflow.request_review(alice, draft)
    assert list(workflow.waiting_reviews(bob)) == []  # decided on this revision already
    edit(draft, alice, 4)
    assert list(workflow.waiting_reviews(bob)) == [draft]


def test_moving_a_draft_to_a_team_needs_author_rights_in_that_team(
    alice, eve, team, other_team, carol
):
    mine = create_draft(alice, [], name="mine")
    with pytest.raises(NotAllowed):
        workflow.assign_team(alice, mine, other_team)
    with pytest.raises(NotAllowed):
        workflow.assign_team(carol, mine, team)
    workflow.assign_team(alice, mine, team)
    assert mine.workflow.team == team


def test_exports_of_the_approved_revision_are_byte_for_byte_the_reviewed_yaml(draft, alice, bob):
    from policyeditor.engine.manifests.loading import dump_documents

    workflow.request_review(alice, draft)
    reviewed = dump_documents(workflow.latest_revision(draft).documents)
    workflow.approve(bob, draft, revision_number=1)
    edit(draft, alice, 9)
    revision, text = workflow.export_approved(alice, draft)
    assert text == reviewed
    assert AuditEvent.objects.for_draft(draft.pk).filter(action=Action.EXPORTED).exists()


def test_exporting_before_any_approval_says_so(draft, alice):
    with pytest.raises(WorkflowError, match="approved yet"):
        workflow.export_approved(alice, draft)


def test_share_links_are_revocable_by_their_creator(draft, alice, carol, eve, other_team):
    revision = workflow.latest_revision(draft)
    link = workflow.create_share_link(carol, draft, revision)
    with pytest.raises(NotAllowed):
        workflow.create_share_link(eve, draft, revision)
    workflow.revoke_share_link(carol, link)
    assert link.revoked


def test_a_draft_is_deleted_by_its_owner_or_a_team_admin_and_the_deletion_is_audited(
    draft, alice, bob, dave
):
    pk = draft.pk
    with pytest.raises(NotAllowed):
        workflow.delete_draft(bob, draft)
    workflow.delete_draft(dave, draft)
    event = AuditEvent.objects.for_draft(pk).first()
    assert event.action == Action.DELETED and event.actor_name == "dave"


def test_waiting_reviews_ignores_a_revision_whose_author_was_deleted(draft, alice, bob, make_user):
    ghost = make_user("ghost")
    edit(draft, ghost, 4)
    workflow.request_review(alice, draft)
    ghost.delete()
    assert list(workflow.waiting_reviews(bob)) == [draft]
