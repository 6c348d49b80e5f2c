"""POST /api/v1/lint, POST /api/v1/static-manifests and validate's static flag."""

from __future__ import annotations

import pytest

from tests.builders import vap, vap_binding

pytestmark = pytest.mark.django_db

POLICY = vap("team.static.k8s.io", validations=[{"expression": "has(object.metadata.labels.team)"}])
BINDING = vap_binding("team-binding.static.k8s.io", "team.static.k8s.io")


def test_lint_returns_each_finding_with_its_place_and_fix(api):
    response = api.post("/api/v1/lint", {"documents": [POLICY, BINDING]})
    assert response.status_code == 200
    body = response.json()
    assert body["kubernetesVersion"] == "1.37"
    [finding] = body["findings"]
    assert finding == {
        "document": 0,
        "kind": "ValidatingAdmissionPolicy",
        "name": "team.static.k8s.io",
        "code": "PE101",
        "severity": "warning",
        "path": "spec.validations[0].expression",
        "line": 1,
        "column": 4,
        "message": finding["message"],
        "fix": "has(object.metadata.labels) && 'team' in object.metadata.labels",
    }


def test_lint_reads_yaml_and_refuses_a_body_without_documents(api):
    text = "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\n"
    assert api.post("/api/v1/lint", {"yaml": text}).json()["findings"] == []
    assert api.post("/api/v1/lint", {"kubernetesVersion": "1.37"}).status_code == 400


def test_validate_with_static_applies_the_static_loader_rules(api):
    body = api.post("/api/v1/validate", {"documents": [POLICY, BINDING], "static": True}).json()
    assert body["valid"] is True
    body = api.post("/api/v1/validate", {"documents": [BINDING], "static": True}).json()
    assert body["valid"] is False
    assert "does not exist in the manifest directory" in body["errors"][0]["message"]
    plain = api.post("/api/v1/validate", {"documents": [POLICY, BINDING]}).json()
    assert plain["valid"] is False
    assert "reserved for static manifest-based configurations" in plain["errors"][0]["message"]


def test_static_manifests_returns_the_layout_and_the_loader_errors(api):
    body = api.post(
        "/api/v1/static-manifests", {"documents": [POLICY, BINDING], "baseDir": "/srv/admission"}
    ).json()
    assert body["valid"] is True
    assert sorted(body["files"]) == [
        "admission-configuration.yaml",
        "validating-policies/team.static.k8s.io.yaml",
    ]
    assert (
        "staticManifestsDir: /srv/admission/validating-policies/"
        in body["files"]["admission-configuration.yaml"]
    )


def test_the_openapi_schema_documents_lint_and_static_manifests(api):
    schema = api.get("/api/schema/", headers={"Accept": "application/json"})
    text = schema.content.decode()
    assert "/api/v1/lint" in text
    assert "/api/v1/static-manifests" in text
