"""The API server's defaults for the four policy kinds (admissionregistration/*/defaults.go)."""

from __future__ import annotations

import copy

import pytest

from policyeditor.engine.defaulting.admissionregistration import apply_defaults
from tests.builders import nested

GROUP = "admissionregistration.k8s.io"


def _policy(kind: str, version: str = "v1", **spec) -> dict:
    return {
        "apiVersion": f"{GROUP}/{version}",
        "kind": kind,
        "metadata": {"name": "p"},
        "spec": spec,
    }


@pytest.mark.parametrize("kind", ["ValidatingAdmissionPolicy", "MutatingAdmissionPolicy"])
@pytest.mark.parametrize("version", ["v1", "v1beta1", "v1alpha1"])
def test_policy_failure_policy_defaults_to_fail(kind, version):
    assert apply_defaults(_policy(kind, version))["spec"]["failurePolicy"] == "Fail"


def test_explicit_failure_policy_is_kept():
    doc = _policy("ValidatingAdmissionPolicy", failurePolicy="Ignore")
    assert apply_defaults(doc)["spec"]["failurePolicy"] == "Ignore"


def test_match_constraints_get_match_policy_selectors_and_rule_scope():
    doc = _policy(
        "ValidatingAdmissionPolicy",
        matchConstraints={
            "resourceRules": [
                {"operations": ["CREATE"]},
                {"operations": ["UPDATE"], "scope": "Namespaced"},
            ],
            "excludeResourceRules": [{"operations": ["DELETE"]}],
        },
    )
    constraints = apply_defaults(doc)["spec"]["matchConstraints"]
    assert constraints["matchPolicy"] == "Equivalent"
    assert constraints["namespaceSelector"] == {}
    assert constraints["objectSelector"] == {}
    assert [rule["scope"] for rule in constraints["resourceRules"]] == ["*", "Namespaced"]
    assert constraints["excludeResourceRules"][0]["scope"] == "*"


def test_match_constraints_absent_stay_absent():
    assert "matchConstraints" not in apply_defaults(_policy("ValidatingAdmissionPolicy"))["spec"]


@pytest.mark.parametrize(
    "kind", ["ValidatingAdmissionPolicyBinding", "MutatingAdmissionPolicyBinding"]
)
def test_binding_match_resources_are_defaulted(kind):
    doc = _policy(
        kind, policyName="p", matchResources={"namespaceSelector": {"matchLabels": {"a": "b"}}}
    )
    match = apply_defaults(doc)["spec"]["matchResources"]
    assert match == {
        "namespaceSelector": {"matchLabels": {"a": "b"}},
        "matchPolicy": "Equivalent",
        "objectSelector": {},
    }


def test_only_v1alpha1_param_ref_defaults_parameter_not_found_action_to_deny():
    alpha = _policy("ValidatingAdmissionPolicyBinding", "v1alpha1", paramRef={"name": "x"})
    beta = _policy("ValidatingAdmissionPolicyBinding", "v1beta1", paramRef={"name": "x"})
    assert apply_defaults(alpha)["spec"]["paramRef"]["parameterNotFoundAction"] == "Deny"
    assert "parameterNotFoundAction" not in apply_defaults(beta)["spec"]["paramRef"]


def test_fields_without_defaults_stay_unset():
    policy = apply_defaults(_policy("MutatingAdmissionPolicy"))
    binding = apply_defaults(_policy("ValidatingAdmissionPolicyBinding", policyName="p"))
    assert "reinvocationPolicy" not in policy["spec"]
    assert "validationActions" not in binding["spec"]
    assert "failurePolicy" not in binding["spec"]


def test_missing_spec_is_defaulted_like_a_zero_struct():
    doc = {
        "apiVersion": f"{GROUP}/v1",
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": "p"},
    }
    assert apply_defaults(doc)["spec"] == {"failurePolicy": "Fail"}


def test_defaulting_returns_a_copy_and_leaves_the_input_alone():
    doc = _policy("ValidatingAdmissionPolicy", matchConstraints={"resourceRules": [{}]})
    before = copy.deepcopy(doc)
    defaulted = apply_defaults(doc)
    assert doc == before
    defaulted["spec"]["matchConstraints"]["resourceRules"][0]["x"] = 1
    assert doc == before


def test_other_kinds_and_odd_shapes_are_returned_unchanged():
    pod = {"apiVersion": "v1", "kind": "Pod", "spec": {}}
    assert apply_defaults(pod) == pod
    weird = {"kind": "ValidatingAdmissionPolicy", "spec": "text"}
    assert apply_defaults(weird) == weird
    assert apply_defaults("not a dict") == "not a dict"  # type: ignore[arg-type]
    rules = _policy("ValidatingAdmissionPolicy", matchConstraints={"resourceRules": "x"})
    assert apply_defaults(rules)["spec"]["matchConstraints"]["resourceRules"] == "x"


def test_deeply_nested_documents_are_copied_without_recursion_errors():
    deep = nested(5000)
    doc = _policy("ValidatingAdmissionPolicy", extra=deep)
    defaulted = apply_defaults(doc)
    assert defaulted["spec"]["failurePolicy"] == "Fail"
    assert defaulted["spec"]["extra"] is not deep
    assert "failurePolicy" not in doc["spec"]


def test_copies_keep_list_order_and_values():
    doc = _policy(
        "ValidatingAdmissionPolicy",
        validations=[{"expression": "a"}, {"expression": "b"}],
        n=[1, [2, 3]],
    )
    defaulted = apply_defaults(doc)
    assert defaulted["spec"]["validations"] == [{"expression": "a"}, {"expression": "b"}]
    assert defaulted["spec"]["n"] == [1, [2, 3]]
