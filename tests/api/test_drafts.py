"""Drafts over HTTP: list, create, retrieve, save with optimistic concurrency, delete, per role."""

from __future__ import annotations

import copy

import pytest

from policyeditor.api.examples import POLICY
from policyeditor.editor.models import Draft, Revision
from policyeditor.editor.services import create_draft
from policyeditor.engine.manifests.loading import dump_documents
from tests.api.conftest import client_for

pytestmark = pytest.mark.django_db

DRAFTS = "/api/v1/drafts"


def url(draft) -> str:
    return f"{DRAFTS}/{draft.pk}"


def limited(limit: int) -> dict:
    doc = copy.deepcopy(POLICY)
    doc["spec"]["validations"][0]["expression"] = f"object.spec.replicas <= {limit}"
    return doc


# --- create ------------------------------------------------------------------------------


def test_creating_from_documents_answers_201_with_location_and_etag(api, alice):
    response = api.post(DRAFTS, {"documents": [POLICY], "description": "limits replicas"})
    assert response.status_code == 201
    body = response.json()
    draft = Draft.objects.get(pk=body["id"])
    assert response["Location"] == f"{DRAFTS}/{draft.pk}"
    assert response["ETag"] == '"1"'
    assert draft.owner == alice and draft.documents == [POLICY]
    assert body["name"] == "replica-limit.example.com"
    assert body["kind"] == "VAP" and body["policyKind"] == "ValidatingAdmissionPolicy"
    assert body["revision"] == 1 and body["status"] == "draft" and body["owner"] == "alice"
    assert body["description"] == "limits replicas"
    assert body["exportUrl"] == f"{DRAFTS}/{draft.pk}/export.yaml"


def test_creating_from_a_yaml_body_infers_everything(api):
    response = api.post(DRAFTS, dump_documents([POLICY]), content_type="application/yaml")
    assert response.status_code == 201
    assert response.json()["documents"] == [POLICY]


def test_creating_from_yaml_text_with_a_name_and_version(api):
    response = api.post(
        DRAFTS, {"yaml": dump_documents([POLICY]), "name": "mine", "kubernetesVersion": "1.33"}
    )
    body = response.json()
    assert (body["name"], body["kubernetesVersion"]) == ("mine", "1.33")


def test_creating_without_documents_is_a_400(api):
    response = api.post(DRAFTS, {"name": "empty"})
    assert response.status_code == 400
    assert response.json()["errors"][0]["path"] == "documents"


def test_creating_with_an_unknown_kind_is_a_400(api):
    response = api.post(DRAFTS, {"documents": [POLICY], "kind": "WEBHOOK"})
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {"path": "kind", "message": '"WEBHOOK" is not a valid choice.'}
    ]


# --- list --------------------------------------------------------------------------------


def test_the_list_shows_only_drafts_the_user_may_see(api, alice, bob):
    mine = create_draft(alice, [POLICY], name="mine")
    create_draft(bob, [POLICY], name="bobs")
    body = api.get(DRAFTS).json()
    assert body["count"] == 1
    assert [d["id"] for d in body["results"]] == [mine.pk]
    assert "documents" not in body["results"][0]


def test_staff_see_everyones_drafts(make_user, alice, bob):
    create_draft(alice, [POLICY], name="a")
    create_draft(bob, [POLICY], name="b")
    staff = client_for(make_user("root", is_staff=True))
    assert staff.get(DRAFTS).json()["count"] == 2


def test_team_members_see_team_drafts(team_draft, carol):
    body = client_for(carol).get(DRAFTS).json()
    assert [d["id"] for d in body["results"]] == [team_draft.pk]


def test_the_list_is_searched_and_filtered(api, alice):
    create_draft(alice, [POLICY], name="replica-limit", description="caps replicas")
    create_draft(alice, [POLICY], name="labels")
    assert [d["name"] for d in api.get(DRAFTS, search="CAPS").json()["results"]] == [
        "replica-limit"
    ]
    assert api.get(DRAFTS, kind="MAP").json()["count"] == 0
    assert api.get(DRAFTS, status="draft").json()["count"] == 2
    assert api.get(DRAFTS, owner="bob").json()["count"] == 0


def test_an_unknown_status_filter_is_a_400_listing_the_choices(api):
    response = api.get(DRAFTS, status="done")
    assert response.status_code == 400
    assert response.json()["detail"].startswith(
        'status: Unsupported value: "done": supported values: "draft"'
    )


def test_the_list_is_paginated(api, alice):
    for index in range(3):
        create_draft(alice, [POLICY], name=f"d{index}")
    first = api.get(DRAFTS, pageSize=2).json()
    assert first["count"] == 3 and len(first["results"]) == 2 and first["next"]
    second = api.get(DRAFTS, pageSize=2, page=2).json()
    assert len(second["results"]) == 1 and second["next"] is None


def test_a_page_past_the_end_is_a_404_problem(api):
    response = api.get(DRAFTS, page=9)
    assert response.status_code == 404
    assert response.json()["detail"] == "Invalid page."


# --- retrieve ----------------------------------------------------------------------------


def test_retrieving_returns_the_documents_and_the_etag(api, draft):
    response = api.get(url(draft))
    assert response.status_code == 200
    assert response["ETag"] == '"1"'
    assert response.json()["documents"] == [POLICY]


def test_someone_elses_draft_is_a_404_not_a_403(bob_api, draft):
    response = bob_api.get(url(draft))
    assert response.status_code == 404
    assert response.json()["detail"] == "No such draft"


def test_a_draft_that_does_not_exist_is_a_404(api):
    assert api.get(f"{DRAFTS}/999999").status_code == 404


# --- update ------------------------------------------------------------------------------


def test_saving_with_the_current_revision_writes_the_next_one(api, draft, alice):
    response = api.put(url(draft), {"documents": [limited(3)], "revision": 1, "note": "tighter"})
    assert response.status_code == 200, response.content
    assert response.json()["revision"] == 2
    assert response["ETag"] == '"2"'
    revision = Revision.objects.get(draft=draft, number=2)
    assert (
        revision.documents == [limited(3)]
        and revision.note == "tighter"
        and revision.author == alice
    )


def test_saving_a_stale_revision_is_a_409_and_writes_nothing(api, draft):
    assert api.put(url(draft), {"documents": [limited(3)], "revision": 1}).status_code == 200
    response = api.put(url(draft), {"documents": [limited(4)], "revision": 1})
    assert response.status_code == 409
    problem = response.json()
    assert problem["type"].endswith("/conflict")
    assert (problem["currentRevision"], problem["yourRevision"]) == (2, 1)
    assert "nothing was written" in problem["detail"]
    draft.refresh_from_db()
    assert draft.revision == 2 and draft.documents == [limited(3)]


def test_if_match_carries_the_revision_when_the_body_does_not(api, draft):
    ok = api.put(url(draft), {"documents": [limited(3)]}, headers={"If-Match": '"1"'})
    assert ok.status_code == 200
    stale = api.put(url(draft), {"documents": [limited(4)]}, headers={"If-Match": '"1"'})
    assert stale.status_code == 409


def test_a_yaml_body_can_be_saved_with_if_match(api, draft):
    response = api.put(
        url(draft),
        dump_documents([limited(2)]),
        content_type="application/yaml",
        headers={"If-Match": '"1"'},
    )
    assert response.status_code == 200
    assert response.json()["documents"] == [limited(2)]


def test_saving_without_a_revision_is_a_428(api, draft):
    response = api.put(url(draft), {"documents": [limited(3)]})
    assert response.status_code == 428
    assert response.json()["errors"] == [{"path": "revision", "message": "This field is required."}]


def test_a_malformed_if_match_is_a_400(api, draft):
    response = api.put(url(draft), {"documents": [limited(3)]}, headers={"If-Match": "yesterday"})
    assert response.status_code == 400
    assert "If-Match must be a revision ETag" in response.json()["detail"]


def test_patch_keeps_the_documents_and_changes_the_version(api, draft):
    response = api.patch(url(draft), {"revision": 1, "kubernetesVersion": "1.34"})
    assert response.status_code == 200
    body = response.json()
    assert (body["revision"], body["kubernetesVersion"], body["documents"]) == (2, "1.34", [POLICY])


def test_put_needs_documents(api, draft):
    response = api.put(url(draft), {"revision": 1})
    assert response.status_code == 400
    assert response.json()["errors"][0]["path"] == "documents"


def test_someone_elses_draft_cannot_be_saved(bob_api, draft):
    assert bob_api.put(url(draft), {"documents": [limited(3)], "revision": 1}).status_code == 404


def test_a_team_viewer_can_read_but_not_save(team_draft, carol):
    viewer = client_for(carol)
    assert viewer.get(url(team_draft)).status_code == 200
    response = viewer.put(url(team_draft), {"documents": [limited(3)], "revision": 1})
    assert response.status_code == 403
    assert response.json()["detail"] == "Your role in this draft's team is read-only."


def test_a_team_reviewer_ranks_above_authors_and_can_save(team_draft, bob):
    response = client_for(bob).put(url(team_draft), {"documents": [limited(3)], "revision": 1})
    assert response.status_code == 200
    assert response.json()["revision"] == 2


# --- delete ------------------------------------------------------------------------------


def test_the_owner_deletes_a_personal_draft_with_its_revisions(api, draft):
    response = api.delete(url(draft))
    assert response.status_code == 204
    assert not Draft.objects.filter(pk=draft.pk).exists()
    assert not Revision.objects.filter(draft_id=draft.pk).exists()


def test_someone_else_cannot_delete_a_draft(bob_api, draft):
    assert bob_api.delete(url(draft)).status_code == 404
    assert Draft.objects.filter(pk=draft.pk).exists()


def test_only_a_team_admin_deletes_a_team_draft(team_draft, alice, dave):
    response = client_for(alice).delete(url(team_draft))
    assert response.status_code == 403
    assert (
        response.json()["detail"] == "Only the owner, a team admin or staff can delete this draft."
    )
    assert client_for(dave).delete(url(team_draft)).status_code == 204
