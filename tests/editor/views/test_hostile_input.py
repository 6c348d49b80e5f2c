"""Hand-made or tampered form posts get an answer, never a 500, and store nothing unreadable."""

from __future__ import annotations

from html import escape

import pytest
from django.urls import reverse

from policyeditor.editor.services import create_draft
from policyeditor.review.models import DraftWorkflow
from tests.editor.formhtml import form_data, postable

pytestmark = pytest.mark.django_db

DEEP = "[" * 5000 + "]" * 5000
HUGE = '{"kind": "ConfigMap", "metadata": {"name": "x"}, "n": 1e400}'
SURROGATE = '{"kind": "ConfigMap", "metadata": {"name": "\\ud800"}}'


@pytest.mark.parametrize("state", [DEEP, HUGE, SURROGATE])
@pytest.mark.parametrize("endpoint", ["draft_validate", "draft_autosave", "draft_try"])
def test_a_document_state_that_is_not_storable_json_is_ignored_not_a_500(
    alice_client, replica_draft, htmx_headers, endpoint, state
):
    data = {"docs": ["d0"], "d0:json": state, "expected_revision": str(replica_draft.revision)}
    response = alice_client.post(
        reverse(f"editor:{endpoint}", args=[replica_draft.pk]), data, headers=htmx_headers
    )
    assert response.status_code < 500
    response.content.decode("utf-8")  # the answer can be sent


@pytest.mark.parametrize(
    "state, message",
    [
        (DEEP, b"nesting deeper than 100 levels"),
        ("[" + HUGE + "]", b"unsupported value 1e400: not a finite number"),
        ("[" + SURROGATE + "]", b"unpaired UTF-16 surrogate"),
    ],
)
def test_restoring_an_unreadable_browser_state_says_why_and_keeps_the_form(
    alice_client, replica_draft, htmx_headers, state, message
):
    url = reverse("editor:draft_form", args=[replica_draft.pk])
    response = alice_client.post(url, {"documents": state}, headers=htmx_headers)
    assert response.status_code == 200
    assert response["HX-Reswap"] == "none"
    assert message in response.content


@pytest.mark.parametrize("metadata", ["x", "[1]"])
def test_importing_a_policy_whose_metadata_is_not_a_mapping_answers_with_the_api_server_errors(
    alice_client, metadata
):
    text = f"apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata: {metadata}\n"
    response = alice_client.post(
        reverse("editor:draft_import"), {"yaml": text, "kubernetes_version": "1.37"}
    )
    assert response.status_code < 500


@pytest.mark.parametrize("spec", ["text", {"paramKind": []}, {"paramKind": {"kind": 5}}])
def test_adding_a_param_object_to_a_draft_with_an_odd_spec_uses_the_defaults(
    alice_client, alice, htmx_headers, spec
):
    draft = create_draft(alice, [{"kind": "ValidatingAdmissionPolicy", "spec": spec}])
    url = reverse("editor:draft_add_document", args=[draft.pk])
    response = alice_client.post(url, {"what": "params"}, headers=htmx_headers)
    assert response.status_code == 200
    assert b"ConfigMap" in response.content


def test_a_team_that_is_not_a_number_is_no_such_team(alice_client, replica_draft):
    url = reverse("review:assign_team", args=[replica_draft.pk])
    for team in ["abc", "1.5", "\u00b2", "9" * 5000]:
        assert alice_client.post(url, {"team": team}).status_code == 404
    assert not DraftWorkflow.objects.filter(draft=replica_draft).exists()


@pytest.mark.parametrize(
    "state, message",
    [
        (HUGE, "document 1: unsupported value 1e400: not a finite number"),
        ('{"kind": "ConfigMap", "kind": "Secret"}', 'document 1: duplicate field "kind"'),
    ],
)
def test_saving_a_form_whose_document_state_is_unreadable_saves_nothing_and_says_why(
    alice_client, replica_draft, htmx_headers, state, message
):
    data = {"docs": ["d0"], "d0:json": state, "expected_revision": str(replica_draft.revision)}
    url = reverse("editor:draft_save", args=[replica_draft.pk])
    response = alice_client.post(url, data, headers=htmx_headers)
    assert response.status_code == 200
    assert escape(f"Not saved: {message}") in response.content.decode()
    replica_draft.refresh_from_db()
    assert replica_draft.revision == 1


def test_saving_a_form_whose_row_state_is_unreadable_names_the_row(
    alice_client, replica_draft, htmx_headers
):
    page = alice_client.get(replica_draft.get_absolute_url())
    data = form_data(page.content.decode())
    row = next(k for k in data if k.endswith(":json") and ".spec.validations." in k)
    data[row] = '{"expression": "true", "n": 1e400}'
    url = reverse("editor:draft_save", args=[replica_draft.pk])
    response = alice_client.post(url, postable(data), headers=htmx_headers)
    text = response.content.decode()
    assert escape("Not saved: document 1: the form's state of spec.validations[0]") in text
    assert "unsupported value 1e400: not a finite number" in text
    replica_draft.refresh_from_db()
    assert replica_draft.revision == 1
