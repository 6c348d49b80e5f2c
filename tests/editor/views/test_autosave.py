"""Server-side autosave: the form's unsaved state kept per user, offered back, cleared by a save."""

from __future__ import annotations

import html
import json

import pytest
from django.urls import reverse

from policyeditor.editor.models import Autosave
from policyeditor.editor.services import save_draft
from tests.editor.formhtml import form_data, postable

pytestmark = pytest.mark.django_db


def _edited_form(client, draft, message: str) -> dict:
    data = form_data(client.get(draft.get_absolute_url()).content.decode())
    name = next(k for k in data if ".spec.validations." in k and k.endswith(".messageExpression"))
    data[name] = f"'{message}'"
    return postable(data)


def _autosave(client, draft, data):
    return client.post(
        reverse("editor:draft_autosave", args=[draft.pk]), data, headers={"HX-Request": "true"}
    )


def _kept_message(draft) -> str:
    documents = Autosave.objects.get(draft=draft).documents
    return documents[0]["spec"]["validations"][0]["messageExpression"]


def test_an_edit_is_kept_on_the_server_and_offered_back_on_the_next_visit(
    alice_client, replica_draft
):
    response = _autosave(
        alice_client, replica_draft, _edited_form(alice_client, replica_draft, "a")
    )
    assert response.status_code == 200
    assert b"Unsaved changes kept on the server." in response.content
    assert _kept_message(replica_draft) == "'a'"
    assert Autosave.objects.get(draft=replica_draft).base_revision == 1
    page = alice_client.get(replica_draft.get_absolute_url()).content.decode()
    assert 'data-server-revision="1"' in page
    start = page.index('data-server-documents="') + len('data-server-documents="')
    kept = json.loads(html.unescape(page[start : page.index('"', start)]))
    assert kept[0]["spec"]["validations"][0]["messageExpression"] == "'a'"
    # The saved draft itself is unchanged: autosave never makes a revision.
    replica_draft.refresh_from_db()
    assert replica_draft.revision == 1 and replica_draft.revisions.count() == 1


def test_a_later_autosave_replaces_the_earlier_one(alice_client, replica_draft):
    _autosave(alice_client, replica_draft, _edited_form(alice_client, replica_draft, "a"))
    _autosave(alice_client, replica_draft, _edited_form(alice_client, replica_draft, "b"))
    assert Autosave.objects.filter(draft=replica_draft).count() == 1
    assert _kept_message(replica_draft) == "'b'"


def test_a_form_equal_to_the_saved_draft_keeps_nothing_and_forgets_an_older_state(
    alice_client, replica_draft
):
    _autosave(alice_client, replica_draft, _edited_form(alice_client, replica_draft, "a"))
    unchanged = postable(
        form_data(alice_client.get(replica_draft.get_absolute_url()).content.decode())
    )
    response = _autosave(alice_client, replica_draft, unchanged)
    assert b"kept on the server" not in response.content
    assert not Autosave.objects.filter(draft=replica_draft).exists()
    assert (
        b"data-server-documents" not in alice_client.get(replica_draft.get_absolute_url()).content
    )


def test_saving_forgets_the_autosave(alice_client, replica_draft):
    data = _edited_form(alice_client, replica_draft, "a")
    _autosave(alice_client, replica_draft, data)
    response = alice_client.post(
        reverse("editor:draft_save", args=[replica_draft.pk]), data, headers={"HX-Request": "true"}
    )
    assert b"Saved revision 2" in response.content
    assert not Autosave.objects.filter(draft=replica_draft).exists()


def test_discarding_forgets_the_autosave(alice_client, replica_draft):
    _autosave(alice_client, replica_draft, _edited_form(alice_client, replica_draft, "a"))
    response = alice_client.post(reverse("editor:draft_autosave_discard", args=[replica_draft.pk]))
    assert response.status_code == 200
    assert not Autosave.objects.filter(draft=replica_draft).exists()


def test_a_state_kept_before_someone_elses_save_is_offered_with_its_base_revision(
    alice_client, alice, replica_draft
):
    _autosave(alice_client, replica_draft, _edited_form(alice_client, replica_draft, "mine"))
    documents = replica_draft.documents
    documents[0]["metadata"]["labels"] = {"changed": "elsewhere"}
    save_draft(replica_draft, documents, expected_revision=1, author=alice, note="meanwhile")
    page = alice_client.get(replica_draft.get_absolute_url()).content.decode()
    # The page says r1: restoring and saving it is then checked against r1, a conflict.
    assert 'data-server-revision="1"' in page and 'id="expected-revision" value="2"' in page


def test_unreadable_param_yaml_keeps_the_last_good_documents(alice_client, replica_draft):
    data = _edited_form(alice_client, replica_draft, "a")
    yaml_name = next(k for k in data if k.endswith(":yaml"))
    data[yaml_name] = ["maxReplicas: [unclosed"]
    assert _autosave(alice_client, replica_draft, data).status_code == 200
    assert Autosave.objects.get(draft=replica_draft).documents[2] == replica_draft.documents[2]


def test_someone_elses_draft_has_no_autosave(client, bob, replica_draft):
    client.force_login(bob)
    for name in ("editor:draft_autosave", "editor:draft_autosave_discard"):
        assert client.post(reverse(name, args=[replica_draft.pk])).status_code == 404
    assert not Autosave.objects.exists()


def test_autosave_is_post_only(alice_client, replica_draft):
    response = alice_client.get(reverse("editor:draft_autosave", args=[replica_draft.pk]))
    assert response.status_code == 405


def test_a_read_only_viewer_cannot_autosave(client, bob_viewer, replica_draft):
    client.force_login(bob_viewer)
    page = client.get(replica_draft.get_absolute_url()).content
    assert b'id="autosave-status"' not in page
    response = _autosave(client, replica_draft, _edited_form(client, replica_draft, "a"))
    assert response.status_code == 403
    assert not Autosave.objects.exists()


def test_a_base_revision_past_the_drafts_own_is_kept_as_the_drafts_revision(
    alice_client, replica_draft
):
    # Only a crafted request posts one: it must neither break the row (an integer too large
    # for the database) nor make a later restore compare against a revision that never was.
    for posted in (str(10**30), str(replica_draft.revision + 5)):
        data = _edited_form(alice_client, replica_draft, "a")
        data["expected_revision"] = posted
        assert _autosave(alice_client, replica_draft, data).status_code == 200
        kept = Autosave.objects.get(draft=replica_draft)
        assert kept.base_revision == replica_draft.revision
