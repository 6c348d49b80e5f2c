"""The `crds` field of validate, evaluate and cel, for each real CRD."""

from __future__ import annotations

import pytest

from tests.crd_cases import BY_ID, CASES, CrdCase, get_path

pytestmark = pytest.mark.django_db

VALIDATE, EVALUATE, CEL = "/api/v1/validate", "/api/v1/evaluate", "/api/v1/cel"


@pytest.fixture(params=CASES, ids=[c.id for c in CASES])
def case(request: pytest.FixtureRequest) -> CrdCase:
    return request.param


def test_validate_warns_of_a_misspelled_crd_field(api, case):
    body = api.post(
        VALIDATE, {"documents": [case.vap(case.valid, case.typo)], "crds": case.crds()}
    ).json()
    assert body["valid"] is True
    assert [w["path"] for w in body["warnings"]] == ["spec.validations[1].expression"]
    message = body["warnings"][0]["message"]
    assert message.startswith(f"{case.api_version}, Kind={case.kind}: ERROR: <input>:1:")
    assert f"undefined field '{case.typo_field}'" in message


def test_evaluate_a_vap_on_the_cr(api, case):
    policy = case.vap(case.valid)
    crds = case.crds()
    allowed = api.post(EVALUATE, {"documents": [policy], "object": case.object(), "crds": crds})
    assert allowed.status_code == 200 and allowed.json()["allowed"] is True
    denied = api.post(
        EVALUATE, {"documents": [policy], "object": case.denied_object(), "crds": crds}
    ).json()
    assert denied["allowed"] is False and denied["statusCode"] == 422
    assert f"failed expression: {case.valid}" in denied["message"]


def test_evaluate_an_apply_configuration_on_a_list_map_and_an_atomic_list(api, case):
    crds = case.crds()
    merged = api.post(
        EVALUATE, {"documents": [case.map(case.list_map)], "object": case.object(), "crds": crds}
    ).json()
    assert merged["allowed"] is True, merged["message"]
    path, value = case.list_map_check
    assert get_path(merged["object"], path) == value
    refused = api.post(
        EVALUATE, {"documents": [case.map(case.atomic)], "object": case.object(), "crds": crds}
    ).json()
    assert refused["allowed"] is False
    assert (
        f"may not mutate atomic arrays, maps or structs: {case.atomic_path}" in refused["message"]
    )


def test_params_of_the_crd_kind_are_typed_and_evaluated(api, case):
    crds = case.crds()
    warned = api.post(
        VALIDATE, {"documents": [case.vap(case.param_typo, params=True)], "crds": crds}
    ).json()
    assert f"undefined field '{case.param_typo_field}'" in warned["warnings"][0]["message"]
    body = api.post(
        EVALUATE,
        {
            "documents": [case.vap(case.param_valid, params=True), case.binding("limits")],
            "resources": [case.object("limits")],
            "object": case.object(),
            "crds": crds,
        },
    ).json()
    assert body["allowed"] is True, body["message"]


def test_cel_with_crds_reports_the_type_check_warning(api, case):
    body = api.post(
        CEL, {"expression": case.typo, "object": case.object(), "crds": case.crds()}
    ).json()
    assert any(f"undefined field '{case.typo_field}'" in w for w in body["warnings"])
    body = api.post(
        CEL, {"expression": case.valid, "object": case.object(), "crds": case.crds()}
    ).json()
    assert body["value"] is True and body["warnings"] == []


def test_a_cr_its_crd_rejects_is_answered_as_the_api_server_would(api):
    case = BY_ID["gateway"]
    bad = case.object("gw")
    bad["spec"]["listeners"][0]["port"] = "eighty"
    body = api.post(
        EVALUATE, {"documents": [case.vap(case.valid)], "object": bad, "crds": case.crds()}
    ).json()
    assert body["statusCode"] == 422 and body["reason"] == "Invalid"
    # The Gateway CRD has CEL rules: a value of the wrong type keeps them from running
    # (apiextensions-apiserver pkg/registry/customresource/strategy.go, hasBlockingErr).
    assert body["message"] == (
        'Gateway.gateway.networking.k8s.io "gw" is invalid: [spec.listeners[0].port: Invalid '
        'value: "eighty": spec.listeners[0].port in body must be of type integer: "string", '
        '<nil>: Invalid value: "null": some validation rules were not checked because the object '
        "was invalid; correct the existing errors to complete validation]"
    )


def test_a_malformed_crd_is_a_400_with_the_api_servers_errors(api):
    crd = BY_ID["certificate"].crds()[0]
    del crd["spec"]["versions"][0]["schema"]
    response = api.post(VALIDATE, {"documents": [BY_ID["certificate"].vap("true")], "crds": [crd]})
    assert response.status_code == 400
    problem = response.json()
    assert problem["detail"].startswith(
        'crds: CustomResourceDefinition.apiextensions.k8s.io "certificates.cert-manager.io" is invalid'
    )
    assert problem["errors"] == [
        {
            "path": "spec.versions[0].schema.openAPIV3Schema",
            "message": "Required value: schemas are required",
        }
    ]


def test_conflicting_crds_are_a_400(api):
    crd = BY_ID["certificate"].crds()[0]
    other = BY_ID["certificate"].crds()[0]
    other["metadata"]["name"] = "certs.cert-manager.io"
    other["spec"]["names"]["plural"] = "certs"
    response = api.post(
        VALIDATE, {"documents": [BY_ID["certificate"].vap("true")], "crds": [crd, other]}
    )
    assert response.status_code == 400
    assert '"Certificate" is already in use' in response.json()["detail"]


def test_cel_with_crds_warns_of_a_crd_rule_the_object_breaks(api):
    case = BY_ID["gateway"]
    bad = case.object("gw")
    bad["spec"]["listeners"][0]["tls"] = {"mode": "Terminate"}
    body = api.post(CEL, {"expression": case.valid, "object": bad, "crds": case.crds()}).json()
    assert body["value"] is True
    assert body["warnings"] == [
        'spec.listeners: Invalid value: "array": tls must not be specified for protocols '
        "['HTTP', 'TCP', 'UDP']",
        # The real rule reads certificateRefs without has(): an absent list is a runtime error,
        # as on the API server.
        'spec.listeners[0].tls: Invalid value: "object": no such key: certificateRefs evaluating '
        "rule: certificateRefs or options must be specified when mode is Terminate",
    ]
