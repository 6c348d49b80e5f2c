"""Tests for the append-only audit log."""

from __future__ import annotations

import pytest

from policyeditor.review import audit, workflow
from policyeditor.review.models import Action, AuditEvent

pytestmark = pytest.mark.django_db


def test_audit_events_cannot_be_changed_or_deleted(draft):
    event = AuditEvent.objects.for_draft(draft.pk).first()
    event.detail = {"forged": True}
    with pytest.raises(ValueError, match="append-only"):
        event.save()
    with pytest.raises(ValueError, match="append-only"):
        event.delete()
    with pytest.raises(ValueError, match="append-only"):
        AuditEvent.objects.all().update(action=Action.APPROVED)
    with pytest.raises(ValueError, match="append-only"):
        AuditEvent.objects.all().delete()


def test_deleting_a_draft_keeps_its_history_and_records_the_deletion(draft, alice):
    pk = draft.pk
    draft._deleted_by = alice
    draft.delete()
    events = AuditEvent.objects.for_draft(pk)
    assert events.first().action == Action.DELETED
    assert events.first().actor_name == "alice"
    assert {e.draft_name for e in events} == {"replica-limit"}
    assert events.filter(action=Action.CREATED).exists()


def test_events_are_filtered_by_team_draft_and_action_and_hidden_from_other_teams(
    draft, alice, eve, other_team, team
):
    workflow.request_review(alice, draft)
    mine = audit.events_for(alice, draft_id=draft.pk, action=Action.REVIEW_REQUESTED)
    assert [e.action for e in mine] == [Action.REVIEW_REQUESTED]
    assert audit.events_for(alice, team=team).count() >= 2
    assert not audit.events_for(eve).filter(draft_ref=draft.pk).exists()


def test_the_actor_is_not_notified_of_their_own_action(draft, alice):
    event = audit.record(Action.COMMENTED, actor=alice, draft=draft, notify=[alice])
    assert not event.notifications.exists()


def test_a_removed_member_no_longer_sees_notifications_naming_the_teams_drafts(
    draft, alice, bob, dave, as_user
):
    from django.urls import reverse

    from policyeditor.teams import services as teams

    workflow.request_review(alice, draft)  # notifies bob, a reviewer of team-a
    assert audit.notifications_for(bob).exists()
    inbox = reverse("review:inbox")
    assert "replica-limit" in as_user(bob).get(inbox).content.decode()
    teams.remove_member(dave, draft.workflow.team, bob)
    assert not audit.notifications_for(bob).exists()
    page = as_user(bob).get(inbox).content.decode()
    assert "replica-limit" not in page
    # The header badge (the context processor) counts only what is still visible.
    assert as_user(bob).get(reverse("editor:draft_list")).context["reviews_badge"] == 0
