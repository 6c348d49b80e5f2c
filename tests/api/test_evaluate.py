"""POST /api/v1/evaluate: admission decisions over HTTP, checked against our test suites."""

from __future__ import annotations

import copy
from types import SimpleNamespace

import pytest

from policyeditor.api.examples import DEPLOYMENT, POLICY
from policyeditor.engine import suites
from policyeditor.engine.manifests.loading import dump_documents
from policyeditor.engine.objects import BINDING_KINDS
from policyeditor.engine.suites.case import expectation_for
from policyeditor.engine.suites.check import check
from policyeditor.engine.suites.model import UNSET
from policyeditor.engine.versions import normalize_version
from tests.builders import document, rules
from tests.vectors import TESTS

pytestmark = pytest.mark.django_db

EVALUATE = "/api/v1/evaluate"
CASES, _ERRORS = suites.discover([TESTS / "data" / "suites" / "passing"])

MAP = document(
    "MutatingAdmissionPolicy",
    "add-team-label",
    {
        "failurePolicy": "Fail",
        "reinvocationPolicy": "Never",
        "matchConstraints": rules(operations=("CREATE",)),
        "mutations": [
            {
                "patchType": "JSONPatch",
                "jsonPatch": {
                    "expression": "[JSONPatch{op: 'add', path: '/metadata/labels', value: {'team': 'a'}}]"
                },
            }
        ],
    },
    api_version="admissionregistration.k8s.io/v1beta1",
)


def request_for(case) -> dict:
    """The API request that asks what the suite case asks (as `policyeditor test` runs it)."""
    documents = case.documents
    if case.layout == "policytest" and case.binding is None:
        documents = [d for d in documents if d.get("kind") not in BINDING_KINDS]
    body = {"documents": documents, "resources": case.resources}
    for key, value in (
        ("kubernetesVersion", case.version),
        ("policy", case.policy),
        ("binding", case.binding),
        ("operation", case.operation),
        ("object", case.object),
        ("oldObject", case.old_object),
        ("userInfo", case.user_info),
        ("request", case.request or None),
        ("authorizer", case.authorizer),
    ):
        if value is not None:
            body[key] = value
    if case.params is not UNSET:
        body["params"] = case.params
    if case.namespace_object is not UNSET:
        body["namespaceObject"] = case.namespace_object
    if not case.defaulting:
        body["defaulting"] = False
    return body


def as_outcome(body: dict) -> SimpleNamespace:
    """The JSON answer shaped like an EvaluationResult, for the suites' own expectation checks."""
    return SimpleNamespace(
        result=body["result"],
        allowed=body["allowed"],
        message=body["message"],
        warnings=body["warnings"],
        audit_annotations=body["auditAnnotations"],
        object=body["object"],
        policies=[],
        errors=body["errors"],
    )


def test_the_suites_were_found():
    assert not _ERRORS
    assert len(CASES) >= 30


@pytest.mark.parametrize("case", CASES, ids=[c.full_name for c in CASES])
def test_evaluation_over_http_meets_the_suite_expectations(api, case):
    response = api.post(EVALUATE, request_for(case))
    assert response.status_code == 200, response.content
    version = normalize_version(case.version)
    expect, input_object = expectation_for(case, version)
    failures = check(expect, as_outcome(response.json()), input_object=input_object)
    assert not failures, failures


def test_a_denial_carries_the_message_kubectl_prints(api):
    body = api.post(EVALUATE, {"documents": [POLICY], "object": DEPLOYMENT}).json()
    assert body["result"] == "deny" and body["allowed"] is False
    assert body["statusCode"] == 422
    assert body["message"] == (
        'deployments.apps "web" is forbidden: ValidatingAdmissionPolicy '
        "'replica-limit.example.com' denied request: replicas must be at most 5"
    )
    [outcome] = body["policies"]
    assert outcome["validations"][0]["status"] == "fail"


def test_an_object_within_the_limit_is_allowed(api):
    small = copy.deepcopy(DEPLOYMENT)
    small["spec"]["replicas"] = 2
    body = api.post(EVALUATE, {"documents": [POLICY], "object": small}).json()
    assert (body["result"], body["allowed"]) == ("allow", True)


def test_a_request_the_policy_does_not_match_is_skipped(api):
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"}}
    assert api.post(EVALUATE, {"documents": [POLICY], "object": pod}).json()["result"] == "skip"


def test_a_mutating_policy_returns_the_mutated_object_and_patch(api):
    body = api.post(
        EVALUATE, {"documents": [MAP], "object": DEPLOYMENT, "kubernetesVersion": "1.34"}
    ).json()
    assert body["result"] == "allow", body
    assert body["object"]["metadata"]["labels"] == {"team": "a"}
    assert body["patch"], body


def test_a_yaml_body_with_the_same_fields_is_evaluated(api):
    text = dump_documents([{"documents": [POLICY], "object": DEPLOYMENT}])
    response = api.post(EVALUATE, text, content_type="application/yaml")
    assert response.status_code == 200
    assert response.json()["result"] == "deny"


def test_update_is_inferred_from_both_objects(api):
    policy = copy.deepcopy(POLICY)
    policy["spec"]["validations"] = [{"expression": "request.operation == 'UPDATE'"}]
    body = api.post(
        EVALUATE, {"documents": [policy], "object": DEPLOYMENT, "oldObject": DEPLOYMENT}
    ).json()
    assert body["result"] == "allow", body["message"]


def test_no_object_at_all_is_a_400(api):
    response = api.post(EVALUATE, {"documents": [POLICY]})
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {"path": "object", "message": "required: give object, oldObject or both"}
    ]


def test_an_unknown_request_field_is_a_400_with_the_engines_reason(api):
    response = api.post(
        EVALUATE, {"documents": [POLICY], "object": DEPLOYMENT, "request": {"bogus": 1}}
    )
    assert response.status_code == 400
    assert response.json()["detail"].startswith("unknown request field(s): bogus")


def test_an_unsupported_operation_is_a_400(api):
    response = api.post(
        EVALUATE, {"documents": [POLICY], "object": DEPLOYMENT, "operation": "PATCH"}
    )
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {"path": "operation", "message": '"PATCH" is not a valid choice.'}
    ]


def test_an_object_that_is_not_a_mapping_is_a_400(api):
    response = api.post(EVALUATE, {"documents": [POLICY], "object": [1]})
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {"path": "object", "message": "must be an object (a mapping), not a list"}
    ]


def test_evaluate_defaults_the_object_unless_asked_not_to(api):
    policy = copy.deepcopy(POLICY)
    policy["spec"]["validations"] = [{"expression": "object.spec.strategy.type == 'RollingUpdate'"}]
    body = {"documents": [policy], "object": {**DEPLOYMENT, "spec": {"replicas": 1}}}
    response = api.post(EVALUATE, body)
    assert response.status_code == 200, response.json()
    data = response.json()
    assert (data["allowed"], data["defaulting"]) == (True, True)
    assert "spec.strategy.type" in data["defaulted"]["object"]
    response = api.post(EVALUATE, {**body, "defaulting": False})
    data = response.json()
    assert (data["allowed"], data["defaulting"], data["defaulted"]) == (False, False, {})
    assert "no such key: strategy" in data["message"]


def test_evaluate_refuses_a_defaulting_flag_that_is_not_a_boolean(api):
    body = {"documents": [POLICY], "object": DEPLOYMENT, "defaulting": "sometimes"}
    response = api.post(EVALUATE, body)
    assert response.status_code == 400
    assert "defaulting" in str(response.json())


def test_the_authorizer_is_bound_without_mocked_decisions_as_eval_and_try_it_bind_it(api):
    authorizing = copy.deepcopy(POLICY)
    check = "authorizer.group('apps').resource('deployments').check('create').allowed()"
    authorizing["spec"]["validations"] = [{"expression": check, "message": "not authorized"}]
    body = api.post(EVALUATE, {"documents": [authorizing], "object": DEPLOYMENT}).json()
    # NoOpinion, as `policyeditor eval` answers: the check is not allowed, the expression false.
    assert (body["result"], body["allowed"]) == ("deny", False), body["message"]
    assert body["message"].endswith("denied request: not authorized")
    allowing = [{"verb": "create", "resource": "deployments", "decision": "allow"}]
    body = api.post(
        EVALUATE, {"documents": [authorizing], "object": DEPLOYMENT, "authorizer": allowing}
    ).json()
    assert body["result"] == "allow"
