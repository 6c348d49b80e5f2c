"""VAP type-check warnings against the matched kinds' schemas (validating/typechecking.go)."""

from __future__ import annotations

from policyeditor.engine.validation.documents import validate_document, warnings_for
from policyeditor.engine.validation.typecheck import MAX_TYPES_TO_CHECK, types_to_check
from tests.engine.validation.fixtures import VAP
from tests.engine.validation.fixtures import with_value as _with


def _policy(expression: str, **rule) -> dict:
    doc = _with(VAP, "spec.validations", [{"expression": expression}])
    doc["spec"]["matchConstraints"]["resourceRules"][0].update(rule)
    return doc


def _typecheck(doc) -> list[str]:
    return [str(w) for w in warnings_for(doc) if w.path.startswith("spec.validations")]


def test_undefined_fields_of_the_matched_kind_are_warned_about():
    doc = _policy("object.spec.replicaz == 1")
    assert _typecheck(doc) == [
        "spec.validations[0].expression: apps/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field "
        "'replicaz'\n | object.spec.replicaz == 1\n | ...........^"
    ]
    assert validate_document(doc) == []  # a warning never blocks


def test_each_matched_kind_gets_its_own_line():
    doc = _policy(
        "object.spec.replicaz == 1", resources=["deployments", "replicasets", "deployments/scale"]
    )
    (warning,) = _typecheck(doc)
    assert warning.count("Kind=") == 2
    assert "\napps/v1, Kind=ReplicaSet: ERROR: <input>:1:12: undefined field 'replicaz'" in warning


def test_message_expressions_are_checked_too():
    doc = _with(
        VAP,
        "spec.validations",
        [{"expression": "true", "messageExpression": "'n=' + object.spec.nope"}],
    )
    (warning,) = _typecheck(doc)
    assert warning.startswith(
        "spec.validations[0].messageExpression: apps/v1, Kind=Deployment: ERROR:"
    )


def test_correct_expressions_and_wildcard_rules_give_no_warnings():
    assert _typecheck(_policy("object.spec.replicas <= 5")) == []
    assert _typecheck(_policy("object.spec.replicaz == 1", apiGroups=["*"])) == []
    assert _typecheck(_policy("object.spec.replicaz == 1", resources=["*"])) == []


def test_types_to_check_resolve_resources_and_stop_at_ten():
    spec = {
        "matchConstraints": {
            "resourceRules": [
                {
                    "apiGroups": ["", "apps"],
                    "apiVersions": ["v1"],
                    "resources": ["pods", "deployments", "nope"],
                }
            ]
        }
    }
    assert types_to_check(spec, "1.37") == [("", "v1", "Pod"), ("apps", "v1", "Deployment")]
    many = [
        "pods",
        "services",
        "configmaps",
        "secrets",
        "namespaces",
        "nodes",
        "endpoints",
        "events",
        "serviceaccounts",
        "persistentvolumes",
        "persistentvolumeclaims",
        "limitranges",
    ]
    wide = {
        "matchConstraints": {
            "resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"], "resources": many}]
        }
    }
    assert len(types_to_check(wide, "1.37")) == MAX_TYPES_TO_CHECK
    assert types_to_check({}, "1.37") == []
