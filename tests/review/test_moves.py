"""Tests for moving a draft between teams: the team it leaves agrees, its review restarts."""

from __future__ import annotations

import pytest
from django.urls import reverse

from policyeditor.editor.models import Status
from policyeditor.review import moves, workflow
from policyeditor.review.models import Action, AuditEvent, Comment, DraftWorkflow
from policyeditor.review.permissions import can_delete, can_view
from policyeditor.teams.errors import NotAllowed, WorkflowError
from policyeditor.teams.models import Membership, Role
from tests.review.conftest import edit

pytestmark = pytest.mark.django_db


@pytest.fixture
def alice_in_both(alice, other_team):
    """alice (an author of team-a) is also an author of team-b."""
    Membership.objects.create(team=other_team, user=alice, role=Role.AUTHOR)
    return alice


@pytest.fixture
def dave_in_both(dave, other_team):
    """dave (the admin of team-a) is also an author of team-b."""
    Membership.objects.create(team=other_team, user=dave, role=Role.AUTHOR)
    return dave


def _approved(draft, alice, bob):
    workflow.request_review(alice, draft)
    workflow.approve(bob, draft, revision_number=1)
    draft.refresh_from_db()
    assert draft.status == Status.APPROVED


def test_an_author_in_two_teams_cannot_take_a_teams_draft_to_the_other_team(
    draft, alice_in_both, other_team, dave, bob, carol, eve
):
    Comment.objects.create(
        draft=draft, revision=draft.revisions.get(), author=bob, body="internal note"
    )
    workflow.assign_team(alice_in_both, draft, other_team)
    draft.refresh_from_db()
    # Only a request was recorded: the draft stays in team-a, where its admin still deletes it.
    assert DraftWorkflow.objects.get(draft=draft).team.name == "team-a"
    assert can_view(dave, draft) and can_delete(dave, draft)
    assert not can_view(eve, draft)  # team-b does not read team-a's comments


def test_an_author_who_does_not_own_the_draft_cannot_even_ask_to_move_it(
    draft, other_team, make_user, team
):
    writer = make_user("writer")
    Membership.objects.create(team=team, user=writer, role=Role.AUTHOR)
    Membership.objects.create(team=other_team, user=writer, role=Role.AUTHOR)
    with pytest.raises(NotAllowed, match="Only an admin of team-a"):
        workflow.assign_team(writer, draft, other_team)
    assert DraftWorkflow.objects.get(draft=draft).move_to is None


def test_the_owners_move_happens_once_an_admin_approves_and_withdraws_the_approvals(
    draft, alice_in_both, bob, dave, other_team, team
):
    _approved(draft, alice_in_both, bob)
    moved = workflow.assign_team(alice_in_both, draft, other_team)
    assert moved.team == team and moved.move_to == other_team
    assert AuditEvent.objects.filter(action=Action.MOVE_REQUESTED, team=team).exists()
    assert dave.review_notifications.filter(event__action=Action.MOVE_REQUESTED).exists()

    moves.approve_move(dave, draft)
    draft.refresh_from_db()
    moved = DraftWorkflow.objects.get(draft=draft)
    assert moved.team == other_team and moved.move_to is None
    # The approval earned in team-a does not travel: the draft is a draft again in team-b.
    assert draft.status == Status.DRAFT
    assert moved.approved_revision is None
    assert not workflow.approvals(draft, draft.revisions.get()).exists()
    # Both sides record the move.
    out = AuditEvent.objects.get(action=Action.MOVED_OUT)
    into = AuditEvent.objects.filter(action=Action.TEAM_ASSIGNED, team=other_team).get()
    assert out.team == team and out.detail["to"] == "team-b"
    assert out.detail["requested_by"] == "alice"
    assert into.detail["from"] == "team-a"


def test_a_moved_draft_needs_the_new_teams_approvals_again(
    draft, alice_in_both, bob, dave, other_team, make_user
):
    _approved(draft, alice_in_both, bob)
    other_team.required_approvals = 2
    other_team.save()
    Membership.objects.create(team=other_team, user=bob, role=Role.REVIEWER)
    workflow.assign_team(alice_in_both, draft, other_team)
    moves.approve_move(dave, draft)
    workflow.request_review(alice_in_both, draft)
    draft.refresh_from_db()
    assert draft in workflow.waiting_reviews(bob)  # his team-a approval no longer counts
    workflow.approve(bob, draft, revision_number=1)
    draft.refresh_from_db()
    assert draft.status == Status.IN_REVIEW  # 1 of the 2 approvals team-b needs


def test_a_team_admin_moves_the_teams_draft_directly(
    draft, dave_in_both, other_team, alice, bob, team
):
    _approved(draft, alice, bob)
    workflow.assign_team(dave_in_both, draft, other_team)
    draft.refresh_from_db()
    assert DraftWorkflow.objects.get(draft=draft).team == other_team
    assert draft.status == Status.DRAFT
    assert AuditEvent.objects.filter(action=Action.MOVED_OUT, team=team).exists()
    assert alice.review_notifications.filter(event__action=Action.MOVED_OUT).exists()


def test_only_an_admin_of_the_team_approves_and_the_requester_may_take_it_back(
    draft, alice_in_both, bob, eve, other_team, dave, team
):
    workflow.assign_team(alice_in_both, draft, other_team)
    for outsider in (bob, alice_in_both):
        with pytest.raises(NotAllowed, match="Only an admin of team-a"):
            moves.approve_move(outsider, draft)
    moves.decline_move(alice_in_both, draft)
    assert DraftWorkflow.objects.get(draft=draft).move_to is None
    with pytest.raises(WorkflowError, match="No move of this draft"):
        moves.approve_move(dave, draft)
    workflow.assign_team(alice_in_both, draft, other_team)
    moves.decline_move(dave, draft)
    assert DraftWorkflow.objects.get(draft=draft).team == team
    assert AuditEvent.objects.filter(action=Action.MOVE_DECLINED).count() == 2


def test_approval_checks_the_requesters_rights_again(draft, alice_in_both, other_team, dave):
    workflow.assign_team(alice_in_both, draft, other_team)
    Membership.objects.filter(team=other_team, user=alice_in_both).delete()
    with pytest.raises(NotAllowed):
        moves.approve_move(dave, draft)
    assert DraftWorkflow.objects.get(draft=draft).team.name == "team-a"


def test_a_draft_in_review_does_not_move(draft, alice_in_both, dave_in_both, other_team):
    workflow.request_review(alice_in_both, draft)
    with pytest.raises(WorkflowError, match="in review"):
        workflow.assign_team(dave_in_both, draft, other_team)


def test_edits_after_the_move_request_keep_the_request(draft, alice_in_both, other_team, dave):
    workflow.assign_team(alice_in_both, draft, other_team)
    edit(draft, alice_in_both, 7)
    moves.approve_move(dave, draft)
    assert DraftWorkflow.objects.get(draft=draft).team == other_team


def test_the_move_through_the_web_asks_then_the_admin_approves_on_the_review_page(
    draft, alice_in_both, dave, other_team, as_user
):
    url = reverse("review:assign_team", args=[draft.pk])
    page = as_user(alice_in_both).post(url, {"team": other_team.pk}, follow=True)
    assert "Asked the admins of team-a to approve moving the draft to team-b" in (
        page.content.decode()
    )
    review_page = reverse("review:revision", args=[draft.pk, 1])
    html = as_user(dave).get(review_page).content.decode()
    assert 'data-testid="move-request"' in html and "Approve the move" in html
    response = as_user(dave).post(reverse("review:approve_move", args=[draft.pk]))
    assert response.status_code == 302
    assert DraftWorkflow.objects.get(draft=draft).team == other_team


def test_a_crafted_approval_by_a_non_admin_is_a_403(draft, alice_in_both, other_team, as_user):
    workflow.assign_team(alice_in_both, draft, other_team)
    response = as_user(alice_in_both).post(reverse("review:approve_move", args=[draft.pk]))
    assert response.status_code == 403
    assert DraftWorkflow.objects.get(draft=draft).team.name == "team-a"


def test_the_review_page_offers_the_move_to_the_owner_as_a_request(draft, alice_in_both, as_user):
    html = as_user(alice_in_both).get(reverse("review:revision", args=[draft.pk, 1]))
    text = html.content.decode()
    assert 'data-testid="move-form"' in text and "Request the move" in text
