"""Revisions of a draft, and export as kubectl-ready YAML (latest, approved or by number)."""

from __future__ import annotations

import copy

import pytest

from policyeditor.api.examples import POLICY
from policyeditor.editor.services import save_draft
from policyeditor.engine.manifests.loading import load_documents
from policyeditor.review import workflow
from policyeditor.review.models import Action, AuditEvent
from tests.api.conftest import client_for

pytestmark = pytest.mark.django_db


def limited(limit: int) -> dict:
    doc = copy.deepcopy(POLICY)
    doc["spec"]["validations"][0]["expression"] = f"object.spec.replicas <= {limit}"
    return doc


def save(draft, user, limit: int):
    draft.refresh_from_db()
    return save_draft(
        draft,
        [limited(limit)],
        expected_revision=draft.revision,
        author=user,
        note=f"limit {limit}",
    )


def test_revisions_are_listed_newest_first_without_documents(api, draft, alice):
    save(draft, alice, 3)
    body = api.get(f"/api/v1/drafts/{draft.pk}/revisions").json()
    assert [r["number"] for r in body["results"]] == [2, 1]
    assert body["results"][0]["note"] == "limit 3" and body["results"][0]["author"] == "alice"
    assert "documents" not in body["results"][0]
    assert body["results"][1]["url"] == f"/api/v1/drafts/{draft.pk}/revisions/1"


def test_one_revision_has_its_documents(api, draft, alice):
    save(draft, alice, 3)
    body = api.get(f"/api/v1/drafts/{draft.pk}/revisions/1").json()
    assert body["number"] == 1 and body["documents"] == [POLICY]


def test_a_missing_revision_is_a_404_naming_it(api, draft):
    response = api.get(f"/api/v1/drafts/{draft.pk}/revisions/7")
    assert response.status_code == 404
    assert response.json()["detail"] == f"draft {draft.pk} has no revision 7"


def test_someone_elses_revisions_are_a_404(bob_api, draft):
    assert bob_api.get(f"/api/v1/drafts/{draft.pk}/revisions").status_code == 404
    assert bob_api.get(f"/api/v1/drafts/{draft.pk}/revisions/1").status_code == 404


def test_export_is_text_yaml_that_loads_back_to_the_documents(api, draft, alice):
    save(draft, alice, 3)
    response = api.get(f"/api/v1/drafts/{draft.pk}/export.yaml")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/yaml; charset=utf-8"
    assert response["X-Draft-Revision"] == "2"
    text = response.content.decode()
    assert text.startswith(
        "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\n"
    )
    assert load_documents(text) == [limited(3)]


def test_export_of_a_numbered_revision(api, draft, alice):
    save(draft, alice, 3)
    response = api.get(f"/api/v1/drafts/{draft.pk}/export.yaml", revision="1")
    assert load_documents(response.content) == [POLICY]


def test_export_honours_accept_text_yaml(api, draft):
    response = api.get(f"/api/v1/drafts/{draft.pk}/export.yaml", headers={"Accept": "text/yaml"})
    assert response.status_code == 200


def test_export_is_recorded_in_the_audit_log(api, draft):
    api.get(f"/api/v1/drafts/{draft.pk}/export.yaml")
    assert AuditEvent.objects.for_draft(draft.pk).filter(action=Action.EXPORTED).count() == 1


def test_export_of_the_approved_revision_before_any_approval_is_a_404(api, draft):
    response = api.get(f"/api/v1/drafts/{draft.pk}/export.yaml", revision="approved")
    assert response.status_code == 404
    assert response["Content-Type"] == "application/problem+json"
    assert "has no approved revision yet" in response.json()["detail"]


def test_export_of_the_approved_revision_skips_later_edits(team_draft, alice, bob):
    workflow.request_review(alice, team_draft)
    workflow.approve(bob, team_draft, revision_number=1)
    save(team_draft, alice, 2)  # an edit after approval: a new draft revision on top
    client = client_for(alice)
    approved = client.get(f"/api/v1/drafts/{team_draft.pk}/export.yaml", revision="approved")
    assert approved["X-Draft-Revision"] == "1"
    assert load_documents(approved.content) == [POLICY]
    latest = client.get(f"/api/v1/drafts/{team_draft.pk}/export.yaml")
    assert load_documents(latest.content) == [limited(2)]


def test_a_team_viewer_may_export(team_draft, carol):
    assert client_for(carol).get(f"/api/v1/drafts/{team_draft.pk}/export.yaml").status_code == 200


def test_an_unsupported_revision_value_is_a_400(api, draft):
    response = api.get(f"/api/v1/drafts/{draft.pk}/export.yaml", revision="newest")
    assert response.status_code == 400
    assert response.json()["detail"].startswith('revision: Unsupported value: "newest"')


def test_export_of_someone_elses_draft_is_a_404(bob_api, draft):
    assert bob_api.get(f"/api/v1/drafts/{draft.pk}/export.yaml").status_code == 404
