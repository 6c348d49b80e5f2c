"""Policies that load but are wrong, and CEL built to hurt: each named precisely, never a 500."""

from __future__ import annotations

import json

import pytest

from policyeditor.engine.cel import Activation, Context, compile_expression
from tests.builders import deployment
from tests.security.conftest import state, text
from tests.security.hostile import (
    CEL_COMPILE_INPUTS,
    CEL_RUNAWAY_INPUTS,
    DOCUMENT_INPUTS,
    as_yaml,
    policy_with_expression,
)

pytestmark = pytest.mark.django_db

DEPLOYMENT = deployment(replicas=1)
POLICY_INPUTS = DOCUMENT_INPUTS + [
    type(item)(item.name, policy_with_expression(item.payload), item.message)
    for item in CEL_COMPILE_INPUTS
]


def api_messages(body: dict) -> list[str]:
    return [f"{error['path']}: {error['message']}" for error in body["errors"]]


@pytest.mark.parametrize("item", POLICY_INPUTS, ids=str)
def test_the_validate_api_reports_the_exact_api_server_error(api, item):
    response = api.post(
        "/api/v1/validate",
        json.dumps({"documents": [item.payload], "kubernetesVersion": "1.34"}),
        content_type="application/json",
    )
    assert response.status_code == 200
    body = response.json()
    assert body["valid"] is False
    assert any(item.message in message for message in api_messages(body)), api_messages(body)


@pytest.mark.parametrize("item", POLICY_INPUTS, ids=str)
def test_live_validation_shows_the_error_and_saves_nothing(ui, draft, item):
    before = state(draft)
    response = ui.post(
        f"/drafts/{draft.pk}/validate/",
        {"docs": "dX", "dX:yaml": as_yaml(item.payload), "kubernetes_version": "1.34"},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200
    body = text(response)
    assert "issue-error" in body
    assert item.message in body
    assert state(draft) == before


# The CEL endpoint's own field limits refuse these before compiling (DRF's CharField).
CEL_API_REFUSALS = {
    "cel-nul-character": "expression: Null characters are not allowed.",
    "cel-over-100000-code-points": "expression: Ensure this field has no more than 100000 characters.",
}
# "must evaluate to bool" is a policy rule: the CEL endpoint evaluates any type.
CEL_API_COMPILE = [
    item
    for item in CEL_COMPILE_INPUTS
    if item.name not in CEL_API_REFUSALS and item.name != "cel-not-bool"
]


@pytest.mark.parametrize("item", CEL_API_COMPILE, ids=str)
def test_the_cel_api_reports_the_compile_error_with_its_position(api, item):
    response = api.post(
        "/api/v1/cel", json.dumps({"expression": item.payload}), content_type="application/json"
    )
    assert response.status_code == 200
    error = response.json()["error"]
    assert error["phase"] == "compile"
    assert item.message in error["message"]


@pytest.mark.parametrize("name", sorted(CEL_API_REFUSALS))
def test_the_cel_api_refuses_what_its_fields_cannot_hold_with_a_400(api, name):
    item = next(entry for entry in CEL_COMPILE_INPUTS if entry.name == name)
    response = api.post(
        "/api/v1/cel", json.dumps({"expression": item.payload}), content_type="application/json"
    )
    assert response.status_code == 400
    assert response.json()["detail"] == CEL_API_REFUSALS[name]


@pytest.mark.parametrize("item", CEL_RUNAWAY_INPUTS, ids=str)
def test_the_cel_api_stops_a_runaway_expression_at_the_cost_limit(api, item):
    response = api.post(
        "/api/v1/cel",
        json.dumps({"expression": item.payload, "object": DEPLOYMENT}),
        content_type="application/json",
    )
    assert response.status_code == 200
    body = response.json()
    assert body["value"] is None
    assert body["error"]["phase"] == "runtime"
    assert body["error"]["message"] == item.message


@pytest.mark.parametrize("item", CEL_RUNAWAY_INPUTS, ids=str)
def test_evaluating_a_runaway_policy_is_an_error_decision_not_a_hang(api, item):
    payload = {
        "documents": [policy_with_expression(item.payload)],
        "object": DEPLOYMENT,
        "kubernetesVersion": "1.34",
    }
    response = api.post("/api/v1/evaluate", json.dumps(payload), content_type="application/json")
    assert response.status_code == 200
    body = response.json()
    assert body["allowed"] is False  # failurePolicy Fail: an expression error denies
    assert item.message in body["message"]


@pytest.mark.parametrize("item", CEL_RUNAWAY_INPUTS, ids=str)
def test_the_try_it_tab_shows_the_cost_limit_and_saves_nothing(ui, draft, item):
    before = state(draft)
    response = ui.post(
        f"/drafts/{draft.pk}/try/",
        {
            "docs": "dX",
            "dX:yaml": as_yaml(policy_with_expression(item.payload)),
            "try_object": as_yaml(DEPLOYMENT),
        },
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200
    assert item.message in text(response)
    assert state(draft) == before


def test_an_unknown_kind_alone_is_not_mistaken_for_a_policy_on_import(ui):
    doc = {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyz"}
    response = ui.post("/drafts/import/", {"yaml": as_yaml(doc), "kubernetes_version": "1.34"})
    assert response.status_code == 400
    assert "No ValidatingAdmissionPolicy or MutatingAdmissionPolicy found in the YAML." in text(
        response
    )


def test_an_unknown_kubernetes_version_is_refused_by_name(api):
    response = api.post(
        "/api/v1/validate",
        json.dumps({"documents": [DOCUMENT_INPUTS[0].payload], "kubernetesVersion": "1.99"}),
        content_type="application/json",
    )
    assert response.status_code == 400
    assert "1.99" in response.json()["detail"]


def test_string_doubling_is_stopped_by_the_cost_limit_as_in_kubernetes():
    # Each `x + x` costs ceil((size(a) + size(b)) * 0.1) as in cel-go, so the limit is passed at
    # the last `+` of the seventh level (2 million characters): the eighth level's 16 million
    # characters are never built.
    doubling = ".map(x, x + x + x + x + x + x + x + x)" * 8
    result = compile_expression(
        "['a']" + doubling + ".size() > 0", context=Context.VALIDATION, version="1.34"
    )
    assert result.ok
    outcome = result.program.evaluate(Activation(object={}, request={}))
    assert outcome.error is not None
    assert outcome.error.message == "operation cancelled: actual cost limit exceeded"
