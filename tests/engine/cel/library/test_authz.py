"""kubernetes.authz: checks build Go AttributesRecords, decisions, service accounts, selectors."""

from __future__ import annotations

import pytest
from cel_expr_python import cel

from policyeditor.engine.cel import library
from policyeditor.engine.cel.library import authz, selectors
from tests.engine.cel.library.helpers import EvalError, env_for

AUTHZ = ("kubernetes.authz", "kubernetes.authzSelectors")
REQUEST = {
    "userInfo": {"username": "alice", "groups": ["devs"], "uid": "u1"},
    "resource": {"group": "apps", "version": "v1", "resource": "deployments"},
    "subResource": "scale",
    "namespace": "team-a",
    "name": "web",
}


class Recorder:
    """An authorizer that records what it is asked and answers from a table."""

    def __init__(self, answer: authz.AuthorizationDecision | None = None) -> None:
        self.asked: list[dict] = []
        self.answer = answer or authz.AuthorizationDecision("allow", "ok")

    def authorize(self, attributes: dict) -> authz.AuthorizationDecision:
        self.asked.append(attributes)
        return self.answer


def _run(expr: str, authorizer: object, request: dict = REQUEST) -> object:
    value, request_resource = authz.bind_authorizer(authorizer, request)
    env = env_for(AUTHZ, ("authorizer",))
    compiled = env.compile(expr)
    result = compiled.eval(data={"authorizer": value})
    if result.type() == cel.Type.ERROR:
        raise EvalError("runtime", library.strip_status(str(result.value())))
    return result.plain_value()


def test_resource_check_sends_the_go_attributes_record() -> None:
    recorder = Recorder()
    expr = (
        "authorizer.group('apps').resource('deployments').subresource('scale')"
        ".namespace('ns').name('web').check('update').allowed()"
    )
    assert _run(expr, recorder) is True
    assert recorder.asked == [
        {
            "user": "alice",
            "uid": "u1",
            "groups": ["devs"],
            "extra": {},
            "resourceRequest": True,
            "apiGroup": "apps",
            "apiVersion": "*",
            "resource": "deployments",
            "subresource": "scale",
            "namespace": "ns",
            "name": "web",
            "verb": "update",
        }
    ]


def test_path_check_is_a_non_resource_request() -> None:
    recorder = Recorder(authz.AuthorizationDecision("deny", "nope"))
    assert _run("authorizer.path('/healthz').check('get').reason()", recorder) == "nope"
    assert recorder.asked[0]["path"] == "/healthz"
    assert recorder.asked[0]["resourceRequest"] is False


def test_request_resource_is_prefilled_from_the_request() -> None:
    value, request_resource = authz.bind_authorizer(Recorder(), REQUEST)
    assert request_resource.groupCheck.group == "apps"
    assert (request_resource.resource, request_resource.subresource) == ("deployments", "scale")
    assert (request_resource.namespace, request_resource.name) == ("team-a", "web")
    assert value.requestResource == request_resource


def test_service_account_changes_the_principal() -> None:
    recorder = Recorder()
    _run(
        "authorizer.serviceAccount('ns1', 'bot').group('').resource('pods').check('get').allowed()",
        recorder,
    )
    asked = recorder.asked[0]
    assert asked["user"] == "system:serviceaccount:ns1:bot"
    assert asked["groups"] == ["system:serviceaccounts", "system:serviceaccounts:ns1"]


@pytest.mark.parametrize(
    ("expr", "message"),
    [
        ("authorizer.serviceAccount('ns', 'Bad_Name')", "Invalid service account name"),
        ("authorizer.serviceAccount('bad.ns', 'bot')", "Invalid service account namespace"),
        ("authorizer.path('')", "path must not be empty"),
        ("authorizer.group('').resource('')", "resource must not be empty"),
    ],
)
def test_builder_errors(expr: str, message: str) -> None:
    with pytest.raises(EvalError, match=message):
        _run(expr + " == null", Recorder())


def test_decisions_expose_allowed_reason_and_error() -> None:
    noisy = Recorder(authz.AuthorizationDecision("noOpinion", "", "webhook down"))
    base = "authorizer.group('').resource('pods').check('get')"
    assert _run(base + ".allowed()", noisy) is False
    assert _run(base + ".errored()", noisy) is True
    assert _run(base + ".error()", noisy) == "webhook down"
    assert _run(base + ".error()", Recorder()) == ""


def test_an_authorizer_that_raises_is_an_errored_decision() -> None:
    class Broken:
        def authorize(self, attributes: dict) -> authz.AuthorizationDecision:
            raise RuntimeError("boom")

    assert _run("authorizer.path('/x').check('get').error()", Broken()) == "boom"


def test_checks_are_cached_per_request() -> None:
    recorder = Recorder()
    expr = "authorizer.path('/a').check('get').allowed() && authorizer.path('/a').check('get').allowed()"
    assert _run(expr, recorder) is True
    assert len(recorder.asked) == 1


def test_selectors_are_parsed_into_requirements() -> None:
    recorder = Recorder()
    _run(
        "authorizer.group('').resource('pods').fieldSelector('spec.nodeName=n1')"
        ".labelSelector('app in (a, b),!tier').check('list').allowed()",
        recorder,
    )
    asked = recorder.asked[0]
    assert asked["fieldSelector"] == [{"field": "spec.nodeName", "operator": "=", "value": "n1"}]
    assert asked["labelSelector"] == [
        {"key": "app", "operator": "in", "values": ["a", "b"]},
        {"key": "tier", "operator": "!", "values": []},
    ]


def test_a_bad_selector_is_handed_to_the_authorizer_not_raised() -> None:
    requirements, error = selectors.parse_label_selector("app in (a")
    assert requirements == [] and error
    requirements, error = selectors.parse_field_selector("novalue")
    assert requirements == [] and "invalid selector" in error


def test_mock_authorizers_of_the_vectors() -> None:
    mock = authz.mock_authorizer(
        {
            "$mock": "allowIfAttributesEqual",
            "attributes": {
                "resource": "pods",
                "verb": "get",
                "resourceRequest": True,
                "apiVersion": "*",
            },
            "otherwise": {"decision": "Deny"},
        }
    )
    allowed = mock.authorize(
        {
            "user": "",
            "groups": [],
            "resource": "pods",
            "verb": "get",
            "resourceRequest": True,
            "apiVersion": "*",
            "apiGroup": "",
        }
    )
    assert allowed.decision == "allow"
    assert mock.authorize({"resource": "pods", "verb": "list"}).decision == "deny"
    fixed = authz.mock_authorizer({"$mock": "fixed", "decision": "NoOpinion", "error": "x"})
    assert fixed.authorize({}).decision == "noOpinion" and fixed.authorize({}).error == "x"
