"""POST /api/v1/cel: one expression over HTTP, checked against the CEL conformance vectors."""

from __future__ import annotations

import pytest

from tests.vectors import assert_vector_outcome, load_vectors, vector_id

pytestmark = pytest.mark.django_db

CEL = "/api/v1/cel"
# Knobs the API does not offer (mocked authorizers in the corpus' own format, cost budgets).
UNSUPPORTED = {"runtime_cost_budget", "per_call_cost_limit", "compatibility_version"}
VECTORS = [
    record
    for record in load_vectors("cel.jsonl")
    if not UNSUPPORTED & record.keys() and "authorizer" not in record.get("vars", {})
]


def request_for(record: dict) -> dict:
    """The API request that asks what the vector asks."""
    body = {"expression": record["expr"], "envType": "StoredExpressions", **record.get("vars", {})}
    if record.get("variables"):
        body["variables"] = record["variables"]
    return body


def outcome(body: dict, expression: str) -> tuple[str, str]:
    """("value" | "compile" | "runtime", the API server's message) of a /cel answer."""
    if body["error"] is None:
        return "value", ""
    if body["error"]["phase"] == "compile":
        return "compile", "compilation failed: " + "\n".join(e["text"] for e in body["errors"])
    return "runtime", f"expression '{expression}' resulted in error: {body['error']['message']}"


@pytest.mark.parametrize("record", VECTORS, ids=[vector_id(r, i) for i, r in enumerate(VECTORS)])
def test_cel_over_http_matches_kubernetes(api, record):
    response = api.post(CEL, request_for(record))
    assert response.status_code == 200, response.content
    body = response.json()
    phase, message = outcome(body, record["expr"])
    assert_vector_outcome(record, phase, message, body["value"])


def test_most_vectors_are_asked_over_http():
    assert len(VECTORS) >= 250


def test_a_value_comes_with_its_cost_and_estimate(api):
    body = api.post(
        CEL, {"expression": "object.spec.replicas * 2", "object": {"spec": {"replicas": 6}}}
    ).json()
    assert body["value"] == 12
    assert body["error"] is None
    assert isinstance(body["cost"], int) and isinstance(body["estimatedCost"], int)
    assert body["kubernetesVersion"] == "1.37"


def test_a_compile_error_is_a_200_with_cel_go_position_and_caret(api):
    response = api.post(CEL, {"expression": "object.spec.replicas *"})
    assert response.status_code == 200
    error = response.json()["error"]
    assert error["phase"] == "compile"
    assert (error["line"], error["column"]) == (1, 23)
    assert error["snippet"] == " | object.spec.replicas *\n | ......................^"
    assert error["text"].startswith("ERROR: <input>:1:23: Syntax error: mismatched input '<EOF>'")


def test_an_undeclared_variable_is_a_compile_error(api):
    error = api.post(CEL, {"expression": "foo + 1"}).json()["error"]
    assert error["message"].startswith("undeclared reference to 'foo'")


def test_a_runtime_error_is_a_200_with_the_error(api):
    body = api.post(CEL, {"expression": "object.missing", "object": {}}).json()
    assert body["value"] is None
    assert body["error"]["phase"] == "runtime"
    assert "no such key: missing" in body["error"]["message"]


def test_composited_variables_are_visible_in_order(api):
    body = api.post(
        CEL,
        {
            "expression": "variables.double + 1",
            "object": {"n": 4},
            "variables": [{"name": "double", "expression": "object.n * 2"}],
        },
    ).json()
    assert body["value"] == 9


def test_params_are_declared_only_when_given(api):
    assert api.post(CEL, {"expression": "params.max", "params": {"max": 3}}).json()["value"] == 3
    error = api.post(CEL, {"expression": "params.max"}).json()["error"]
    assert "undeclared reference to 'params'" in error["message"]


def test_a_mutation_context_can_build_json_patches(api):
    body = api.post(
        CEL,
        {
            "expression": "[JSONPatch{op: 'add', path: '/spec/replicas', value: 1}]",
            "context": "mutation",
        },
    ).json()
    assert body["error"] is None, body
    assert body["value"] == [{"op": "add", "path": "/spec/replicas", "value": 1}]


def test_a_mocked_authorizer_answers_authorization_checks(api):
    body = api.post(
        CEL,
        {
            "expression": "authorizer.group('apps').resource('deployments').namespace('default').check('create').allowed()",
            "authorizer": [
                {"group": "apps", "resource": "deployments", "verb": "create", "decision": "allow"}
            ],
        },
    ).json()
    assert body["value"] is True, body


def test_not_a_number_is_returned_as_a_string_rather_than_breaking_json(api):
    assert api.post(CEL, {"expression": "0.0 / 0.0"}).json()["value"] == "NaN"


def test_the_target_version_gates_libraries(api):
    # ip() arrived in Kubernetes 1.30 and new expressions are checked against version - 1.
    body = api.post(
        CEL, {"expression": "ip('10.0.0.1').family()", "kubernetesVersion": "1.30"}
    ).json()
    assert body["error"] is not None and body["error"]["phase"] == "compile"
    newer = api.post(
        CEL, {"expression": "ip('10.0.0.1').family()", "kubernetesVersion": "1.31"}
    ).json()
    assert newer["value"] == 4, newer


def test_an_unknown_context_is_a_400_listing_the_choices(api):
    response = api.post(CEL, {"expression": "1", "context": "webhook"})
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {"path": "context", "message": '"webhook" is not a valid choice.'}
    ]


def test_a_malformed_authorizer_entry_is_a_400_naming_the_entry(api):
    response = api.post(
        CEL, {"expression": "1", "authorizer": [{"verb": "get", "decision": "maybe"}]}
    )
    assert response.status_code == 400
    [error] = response.json()["errors"]
    assert error["path"] == "authorizer"
    assert error["message"].startswith("authorizer[0].decision: Unsupported value: 'maybe'")


def test_an_unknown_field_is_refused_rather_than_ignored(api):
    response = api.post(CEL, {"expression": "1", "objekt": {}})
    assert response.status_code == 400
    assert response.json()["errors"] == [{"path": "objekt", "message": 'unknown field "objekt"'}]


def test_a_variable_without_a_name_is_a_400(api):
    response = api.post(CEL, {"expression": "1", "variables": [{"expression": "2"}]})
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {"path": "variables[0].name", "message": "This field is required."}
    ]
