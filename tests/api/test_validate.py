"""POST /api/v1/validate: API-server validation over HTTP, checked against the conformance vectors."""

from __future__ import annotations

import copy

import pytest

from policyeditor.api.examples import POLICY
from policyeditor.engine.manifests.loading import dump_documents
from tests.vectors import assert_error_lines, load_vectors, vector_id

pytestmark = pytest.mark.django_db

VALIDATE = "/api/v1/validate"
# Fields the API server defaults before validating: the vectors were validated without
# defaulting, so a vector expecting an error on one of them cannot be seen through the API.
DEFAULTED = (
    "failurePolicy",
    "matchPolicy",
    "namespaceSelector",
    "objectSelector",
    "scope",
    "parameterNotFoundAction",
)
VECTORS = [
    record
    for record in load_vectors("validation.jsonl")
    if record["kind"] == "validate_policy"
    and "old_policy" not in record  # update validation needs the stored object: not an API input
    and not any(field in text for text in record["expect_errors"] for field in DEFAULTED)
]


def rendered(errors: list[dict]) -> list[str]:
    """Errors as the API server prints them (`path: message`)."""
    return [f"{e['path']}: {e['message']}" if e["path"] else e["message"] for e in errors]


@pytest.mark.parametrize("record", VECTORS, ids=[vector_id(r, i) for i, r in enumerate(VECTORS)])
def test_validation_over_http_matches_kubernetes(api, record):
    response = api.post(VALIDATE, {"documents": [record["policy"]]})
    assert response.status_code == 200, response.content
    body = response.json()
    lines = rendered(body["errors"])
    assert body["valid"] is (not lines)
    assert_error_lines(record, lines)


def test_there_are_enough_vectors_to_mean_something():
    assert len(VECTORS) >= 50


def test_a_valid_policy_is_valid_with_no_errors(api):
    body = api.post(VALIDATE, {"documents": [POLICY]}).json()
    assert body == {"valid": True, "kubernetesVersion": "1.37", "errors": [], "warnings": []}


def test_errors_name_the_document_kind_name_and_field_path(api):
    broken = copy.deepcopy(POLICY)
    broken["spec"]["validations"][0]["expression"] = "object.spec.replicas <= "
    body = api.post(VALIDATE, {"documents": [{"kind": "ConfigMap"}, broken]}).json()
    assert body["valid"] is False
    [error] = body["errors"]
    assert error["document"] == 1
    assert error["kind"] == "ValidatingAdmissionPolicy"
    assert error["name"] == "replica-limit.example.com"
    assert error["path"] == "spec.validations[0].expression"
    assert "compilation failed: ERROR: <input>:1:25: Syntax error" in error["message"]


def test_yaml_text_in_a_json_body_is_validated(api):
    body = api.post(VALIDATE, {"yaml": dump_documents([POLICY])}).json()
    assert body["valid"] is True


def test_a_raw_yaml_body_is_validated_with_the_version_from_the_query(api):
    doc = copy.deepcopy(POLICY)
    doc["apiVersion"] = "admissionregistration.k8s.io/v1beta1"
    response = api.post(
        VALIDATE + "?kubernetesVersion=1.33", dump_documents([doc]), content_type="application/yaml"
    )
    body = response.json()
    assert body["kubernetesVersion"] == "1.33"
    assert body["valid"] is True
    assert any(
        w["path"] == "apiVersion" and "deprecated" in w["message"] for w in body["warnings"]
    ), body["warnings"]


def test_text_yaml_is_accepted_as_kubectl_users_send_it(api):
    response = api.post(VALIDATE, dump_documents([POLICY]), content_type="text/yaml")
    assert response.json()["valid"] is True


def test_a_version_that_does_not_serve_the_api_version_is_an_error_not_a_400(api):
    doc = copy.deepcopy(POLICY)
    doc["kind"] = "MutatingAdmissionPolicy"
    body = api.post(VALIDATE, {"documents": [doc], "kubernetesVersion": "1.31"}).json()
    assert body["valid"] is False
    assert any(
        "1.31" in e["message"] or "not served" in e["message"] or "no kind" in e["message"].lower()
        for e in body["errors"]
    ), body


def test_an_unsupported_kubernetes_version_is_a_400_with_the_reason(api):
    response = api.post(VALIDATE, {"documents": [POLICY], "kubernetesVersion": "1.20"})
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {
            "path": "kubernetesVersion",
            "message": "Kubernetes 1.20 is not supported (supported: 1.30, 1.31, 1.32, 1.33, 1.34, 1.35, 1.36, 1.37)",
        }
    ]


def test_unreadable_yaml_is_a_400_naming_the_line(api):
    response = api.post(VALIDATE, {"yaml": "kind: A\n  bad: : x\n"})
    assert response.status_code == 400
    problem = response.json()
    assert problem["detail"].startswith("yaml: document 1: line 2")
    assert problem["line"] == 2


def test_documents_and_yaml_together_are_refused(api):
    response = api.post(VALIDATE, {"documents": [POLICY], "yaml": "x: 1"})
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {"path": "yaml", "message": "give either documents or yaml, not both"}
    ]


def test_a_document_that_is_not_an_object_is_refused_with_its_index(api):
    response = api.post(VALIDATE, {"documents": [POLICY, "nope"]})
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {"path": "documents[1]", "message": "must be an object (a mapping), not a string"}
    ]


def test_nothing_to_validate_is_a_400(api):
    response = api.post(VALIDATE, {})
    assert response.status_code == 400
    assert response.json()["errors"][0]["path"] == "documents"
