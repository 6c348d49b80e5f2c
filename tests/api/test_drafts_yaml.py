"""Drafts over HTTP as YAML: the objects themselves as a body, kept as written, edits minimal."""

from __future__ import annotations

import copy

import pytest

from policyeditor.editor.models import Draft
from policyeditor.engine.manifests.loading import load_documents
from tests.engine.manifests.test_roundtrip import corpus, kubernetes_manifests
from tests.sources import REPLICA_LIMIT_YAML as SOURCE
from tests.sources import changed_lines

pytestmark = pytest.mark.django_db

DRAFTS = "/api/v1/drafts"

AS_LIST = """\
apiVersion: v1
kind: List
items:
- apiVersion: admissionregistration.k8s.io/v1
  kind: ValidatingAdmissionPolicy
  metadata: {name: listed}   # from a List
  spec:
    validations:
    - expression: "true"
"""


def export(api, draft_id: int) -> str:
    response = api.get(f"{DRAFTS}/{draft_id}/export.yaml")
    assert response.status_code == 200
    return response.content.decode()


def test_a_yaml_body_of_the_objects_creates_a_draft_that_exports_byte_identical(api):
    response = api.post(DRAFTS, SOURCE, content_type="application/yaml")
    assert response.status_code == 201
    draft_id = response.json()["id"]
    assert Draft.objects.get(pk=draft_id).source == SOURCE
    assert export(api, draft_id) == SOURCE


def test_a_list_body_is_read_as_its_items_and_kept_as_written(api):
    response = api.post(DRAFTS, AS_LIST, content_type="application/yaml")
    assert response.status_code == 201
    assert [d["metadata"]["name"] for d in response.json()["documents"]] == ["listed"]
    assert export(api, response.json()["id"]) == AS_LIST


def test_a_put_of_json_documents_changing_one_field_changes_one_line_of_the_export(api):
    draft_id = api.post(DRAFTS, SOURCE, content_type="application/yaml").json()["id"]
    documents = copy.deepcopy(load_documents(SOURCE))
    documents[0]["spec"]["validations"][0]["expression"] = "object.spec.replicas <= 7"
    response = api.put(f"{DRAFTS}/{draft_id}", {"documents": documents, "revision": 1})
    assert response.status_code == 200 and response.json()["revision"] == 2
    assert changed_lines(SOURCE, export(api, draft_id)) == [
        '-  - expression: "object.spec.replicas <= 5"   # the limit',
        '+  - expression: "object.spec.replicas <= 7"   # the limit',
    ]


def test_a_put_of_yaml_keeps_the_new_text_as_written(api):
    draft_id = api.post(DRAFTS, SOURCE, content_type="application/yaml").json()["id"]
    text = SOURCE.replace("# the limit", "# the limit, agreed in review")
    response = api.put(
        f"{DRAFTS}/{draft_id}", text, content_type="application/yaml", headers={"If-Match": '"1"'}
    )
    assert response.status_code == 200
    assert response.json()["unchanged"] is False  # a comment is a change worth a revision
    assert export(api, draft_id) == text


def test_a_put_of_the_same_documents_stores_nothing(api):
    draft_id = api.post(DRAFTS, SOURCE, content_type="application/yaml").json()["id"]
    response = api.put(f"{DRAFTS}/{draft_id}", {"documents": load_documents(SOURCE), "revision": 1})
    assert response.json()["unchanged"] is True and response.json()["revision"] == 1
    assert export(api, draft_id) == SOURCE


def test_the_yaml_field_of_a_json_body_is_kept_as_written_too(api):
    response = api.post(DRAFTS, {"yaml": SOURCE})
    assert response.status_code == 201
    assert export(api, response.json()["id"]) == SOURCE


@pytest.mark.parametrize("path", corpus(), ids=lambda p: p.name)
def test_every_example_manifest_posted_as_yaml_exports_byte_identical(api, path):
    found = kubernetes_manifests(path)
    if found is None:
        pytest.skip("not Kubernetes manifests a draft holds")
    text, documents = found
    response = api.post(DRAFTS, text.encode("utf-8"), content_type="application/yaml")
    assert response.status_code == 201, response.content
    assert export(api, response.json()["id"]) == text
