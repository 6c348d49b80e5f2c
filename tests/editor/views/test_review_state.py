"""The editor page shows the draft's review state and exports the approved revision."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from policyeditor.editor.services import create_draft, save_draft
from policyeditor.engine.manifests.loading import load_documents
from policyeditor.review import workflow
from policyeditor.review.models import Action, AuditEvent
from policyeditor.teams.models import Role
from tests.builders import replica_limit as policy
from tests.conftest import team_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def team(alice, bob):
    """platform: alice author, bob reviewer."""
    return team_of("platform", [(alice, Role.AUTHOR), (bob, Role.REVIEWER)])


@pytest.fixture
def approved_draft(alice, bob, team):
    """alice's draft with limit 5, approved by bob at revision 2."""
    draft = create_draft(alice, [policy(3)], name="replica-limit")
    workflow.assign_team(alice, draft, team)
    draft.refresh_from_db()
    draft = save_draft(draft, [policy(5)], expected_revision=1, author=alice)
    workflow.request_review(alice, draft)
    workflow.approve(bob, draft, revision_number=2)
    draft.refresh_from_db()
    return draft


def _page(client: Client, draft) -> str:
    response = client.get(reverse("editor:draft_edit", args=[draft.pk]))
    assert response.status_code == 200
    return response.content.decode()


def test_the_draft_page_links_to_its_review_page_and_shows_the_review_state(
    alice_client, alice, team
):
    draft = create_draft(alice, [policy(5)], name="replica-limit")
    workflow.assign_team(alice, draft, team)
    draft.refresh_from_db()
    workflow.request_review(alice, draft)
    html = _page(alice_client, draft)
    assert f'href="{reverse("review:draft", args=[draft.pk])}"' in html
    assert "Review…" in html
    assert 'id="review-status"' in html and "In review" in html
    assert 'id="approved-mark"' not in html


def test_an_approved_draft_is_marked_and_saving_is_said_to_create_a_new_revision(
    alice_client, approved_draft
):
    html = _page(alice_client, approved_draft)
    assert "approved r2" in html
    assert "Approved revision r2 is exportable" in html
    assert "saving creates revision r3 on top of it" in html
    assert "?revision=approved" in html


def test_after_an_edit_the_approved_revision_stays_marked_and_exportable(
    alice_client, alice, approved_draft
):
    draft = save_draft(approved_draft, [policy(9)], expected_revision=2, author=alice)
    html = _page(alice_client, draft)
    assert "approved r2" in html
    assert "the latest, r3, is not approved" in html
    assert "on top of approved revision r2" in html
    url = reverse("editor:draft_export", args=[draft.pk])
    approved = alice_client.get(url, {"revision": "approved"})
    latest = alice_client.get(url)
    assert approved.status_code == 200
    assert "approved-r2" in approved["Content-Disposition"]
    assert load_documents(approved.content) == [policy(5)]
    assert load_documents(latest.content) == [policy(9)]


def test_export_of_the_approved_revision_is_byte_for_byte_the_review_apps(
    alice_client, approved_draft
):
    ours = alice_client.get(
        reverse("editor:draft_export", args=[approved_draft.pk]), {"revision": "approved"}
    )
    theirs = alice_client.get(reverse("review:approved_download", args=[approved_draft.pk]))
    assert ours.content == theirs.content


def test_export_of_an_unapproved_or_unknown_revision_is_refused_with_a_reason(
    alice_client, alice, replica_draft
):
    url = reverse("editor:draft_export", args=[replica_draft.pk])
    response = alice_client.get(url, {"revision": "approved"})
    assert response.status_code == 404
    assert b"No revision of this draft has been approved yet." in response.content
    assert alice_client.get(url, {"revision": "nope"}).status_code == 400
    assert alice_client.get(url, {"revision": "1"}).status_code == 200


def test_a_personal_draft_shows_the_review_link_but_no_approved_mark(alice_client, replica_draft):
    html = _page(alice_client, replica_draft)
    assert "Review…" in html
    assert 'id="approved-mark"' not in html
    assert 'id="approved-save-note"' not in html


def test_every_export_from_the_editor_is_in_the_audit_log(alice_client, alice, approved_draft):
    url = reverse("editor:draft_export", args=[approved_draft.pk])
    alice_client.get(url, {"revision": "approved"})
    alice_client.get(url, {"part": "policy"})
    events = AuditEvent.objects.filter(draft_ref=approved_draft.pk, action=Action.EXPORTED)
    got = sorted((e.revision_number, e.detail["approved"], e.detail["part"]) for e in events)
    assert got == [(2, False, "policy"), (2, True, "all")]
    assert all(e.actor == alice for e in events)


def test_a_refused_export_records_nothing(alice_client, replica_draft):
    url = reverse("editor:draft_export", args=[replica_draft.pk])
    alice_client.get(url, {"revision": "approved"})
    alice_client.get(url, {"part": "nope"})
    assert not AuditEvent.objects.filter(draft_ref=replica_draft.pk, action=Action.EXPORTED)
