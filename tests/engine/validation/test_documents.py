"""API-server validation: served versions, strict decoding, defaulting, updates, bundles, warnings."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from policyeditor.engine.errors import FieldError
from policyeditor.engine.validation.documents import (
    status_message,
    validate_document,
    validate_documents,
    warnings_for,
)
from tests.builders import json_values, nested
from tests.engine.validation.fixtures import MAP, MAPB, VAP, VAPB
from tests.engine.validation.fixtures import with_value as _with


def _rendered(doc, **kwargs) -> list[str]:
    return [str(error) for error in validate_document(doc, **kwargs)]


@pytest.mark.parametrize("doc", [VAP, VAPB, MAP, MAPB], ids=lambda d: d["kind"])
def test_documentation_examples_are_valid_after_defaulting(doc):
    # The MAP binding omits parameterNotFoundAction: v1alpha1 defaults it to Deny.
    assert _rendered(doc, version="1.34") == []


def test_without_defaulting_the_required_defaulted_fields_are_reported():
    assert _rendered(VAP, default=False) == [
        "spec.failurePolicy: Required value",
        "spec.matchConstraints.matchPolicy: Required value",
        "spec.matchConstraints.namespaceSelector: Required value",
        "spec.matchConstraints.objectSelector: Required value",
    ]


def test_unserved_api_version_names_the_version_that_serves_it():
    rendered = _rendered(
        _with(MAP, "apiVersion", "admissionregistration.k8s.io/v1"), version="1.35"
    )
    assert rendered[0] == (
        'apiVersion: Invalid value: "admissionregistration.k8s.io/v1": no matches for kind '
        '"MutatingAdmissionPolicy" in version "admissionregistration.k8s.io/v1" in Kubernetes 1.35 '
        "(requires Kubernetes 1.36); served: admissionregistration.k8s.io/v1alpha1, "
        "admissionregistration.k8s.io/v1beta1"
    )


def test_mutating_policies_do_not_exist_before_1_32():
    rendered = _rendered(MAPB, version="1.31")
    assert rendered[0].endswith("(requires Kubernetes 1.32); served: none")


def test_foreign_group_is_refused():
    rendered = _rendered(_with(VAP, "apiVersion", "example.com/v1"))
    assert rendered[0].startswith(
        'apiVersion: Invalid value: "example.com/v1": no matches for kind'
    )


def test_kind_and_api_version_are_required_and_checked():
    assert _rendered({}) == ["kind: Required value", "apiVersion: Required value"]
    assert _rendered({"kind": "Pod", "apiVersion": "v1"}) == [
        'kind: Unsupported value: "Pod": supported values: "ValidatingAdmissionPolicy", '
        '"ValidatingAdmissionPolicyBinding", "MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding"'
    ]


def test_unknown_fields_are_reported_like_strict_decoding():
    doc = _with(VAP, "spec.validations", [{"expression": "true", "mesage": "typo"}])
    doc["spec"]["extra"] = 1
    doc["metadata"]["labelz"] = {}
    rendered = _rendered(doc)
    assert (
        'spec.validations[0].mesage: strict decoding error: unknown field "spec.validations[0].mesage"'
        in rendered
    )
    assert 'spec.extra: strict decoding error: unknown field "spec.extra"' in rendered
    assert 'metadata.labelz: strict decoding error: unknown field "metadata.labelz"' in rendered


def test_field_names_are_case_sensitive():
    rendered = _rendered(_with(VAPB, "spec.ValidationActions", ["Deny"]))
    assert (
        'spec.ValidationActions: strict decoding error: unknown field "spec.ValidationActions"'
        in rendered
    )


def test_wrong_types_stop_validation_like_a_failed_decode():
    doc = _with(VAP, "spec.failurePolicy", 3)
    doc["spec"]["validations"] = "object.x > 1"
    doc["spec"]["bogus"] = True
    assert sorted(_rendered(doc)) == [
        'spec.bogus: strict decoding error: unknown field "spec.bogus"',
        "spec.failurePolicy: json: cannot unmarshal number into Go struct field "
        "ValidatingAdmissionPolicySpec.spec.failurePolicy of type string",
        "spec.validations: json: cannot unmarshal string into Go struct field "
        "ValidatingAdmissionPolicySpec.spec.validations of type []v1.Validation",
    ]


def test_nested_wrong_types_name_the_go_struct():
    doc = _with(VAP, "spec.matchConstraints.resourceRules", [{"operations": "CREATE"}])
    assert _rendered(doc) == [
        "spec.matchConstraints.resourceRules[0].operations: json: cannot unmarshal string into Go "
        "struct field NamedRuleWithOperations.spec.matchConstraints.resourceRules.operations of type []string"
    ]


def test_nulls_are_absent_fields_and_null_list_entries_are_zero_values():
    doc = copy.deepcopy(VAP)
    doc["spec"]["failurePolicy"] = None
    doc["spec"]["paramKind"] = None
    assert _rendered(doc) == []  # failurePolicy: null is defaulted like an absent field
    doc["spec"]["validations"] = [None]
    assert _rendered(doc) == [
        "spec.validations[0].expression: Required value: expression is not specified"
    ]


def test_update_skips_unchanged_match_conditions():
    doc = _with(VAP, "spec.matchConditions", [{"name": "", "expression": "true"}])
    assert "spec.matchConditions[0].name: Required value" in _rendered(doc)
    assert _rendered(doc, old=doc) == []
    changed = _with(doc, "spec.paramKind", {"apiVersion": "v1", "kind": "ConfigMap"})
    assert "spec.matchConditions[0].name: Required value" in _rendered(changed, old=doc)


def test_update_with_a_different_kind_is_refused():
    assert (
        'kind: Invalid value: "ValidatingAdmissionPolicy": the old object must be of the same kind'
        in _rendered(VAP, old=VAPB)
    )


def test_bad_kubernetes_version_is_an_error_not_an_exception():
    assert _rendered(VAP, version="2.0") == [
        "Kubernetes 2.0 is not supported (supported: 1.30, 1.31, 1.32, 1.33, 1.34, 1.35, 1.36, 1.37)"
    ]


def test_non_object_documents_are_errors():
    assert _rendered(["a"]) == ["expected an object (a mapping), got list"]  # type: ignore[arg-type]


def test_validate_documents_skips_other_kinds_and_reports_duplicates():
    params = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}}
    bad = _with(VAPB, "spec.validationActions", ["Nope"])
    found = validate_documents([VAP, params, bad, VAP], version="1.34")
    assert [(index, str(error)) for index, error in found] == [
        (
            2,
            'spec.validationActions[0]: Unsupported value: "Nope": supported values: "Audit", "Deny", "Warn"',
        ),
        (
            3,
            'metadata.name: Duplicate value: "demo-policy.example.com": document 1 already defines '
            "ValidatingAdmissionPolicy 'demo-policy.example.com'",
        ),
    ]


def test_validate_documents_reports_documents_without_kind():
    found = validate_documents([{"metadata": {}}])
    assert [str(error) for _, error in found] == [
        "kind: Required value",
        "apiVersion: Required value",
    ]


def test_deprecated_api_versions_warn():
    beta = _with(VAP, "apiVersion", "admissionregistration.k8s.io/v1beta1")
    assert [str(w) for w in warnings_for(beta, version="1.31")][:1] == [
        "apiVersion: admissionregistration.k8s.io/v1beta1 ValidatingAdmissionPolicy is deprecated in "
        "v1.31+, unavailable in v1.34+; use admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy"
    ]
    assert not [w for w in warnings_for(beta, version="1.30") if "deprecated" in w.message]
    assert not [w for w in warnings_for(VAP, version="1.37") if w.path == "apiVersion"]


_json = json_values(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5)
)
_keys = st.sampled_from(
    [
        "spec",
        "metadata",
        "validations",
        "matchConstraints",
        "resourceRules",
        "paramRef",
        "name",
        "expression",
        "operations",
        "mutations",
        "patchType",
        "jsonPatch",
        "variables",
        "matchConditions",
        "auditAnnotations",
        "selector",
        "matchExpressions",
        "policyName",
        "validationActions",
    ]
)
_shaped = st.recursive(
    _json,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_keys, inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(
    kind=st.sampled_from(
        [
            "ValidatingAdmissionPolicy",
            "ValidatingAdmissionPolicyBinding",
            "MutatingAdmissionPolicy",
            "MutatingAdmissionPolicyBinding",
        ]
    ),
    body=st.dictionaries(_keys, _shaped, max_size=4),
)
def test_arbitrary_documents_give_field_errors_and_never_raise(kind, body):
    doc = {"apiVersion": "admissionregistration.k8s.io/v1", "kind": kind, **body}
    errors = validate_document(doc, default=False) + validate_document(doc, old=doc)
    assert all(isinstance(error, FieldError) for error in errors)
    assert not [error for error in errors if error.message.startswith("Internal error")]


def test_status_message_is_the_api_servers_invalid_answer():
    doc = _with(VAPB, "spec.validationActions", None)
    doc["spec"]["policyName"] = ""
    errors = validate_document(doc)
    assert status_message(doc, errors) == (
        'ValidatingAdmissionPolicyBinding.admissionregistration.k8s.io "demo-binding-test.example.com" is invalid: '
        "[spec.policyName: Required value, spec.validationActions: Required value: at least one validation "
        "action is required]"
    )
    assert status_message(doc, errors[:1]).endswith("is invalid: spec.policyName: Required value")
    assert status_message(doc, []) == ""


def test_map_entries_are_named_by_key_in_paths():
    doc = _with(VAP, "metadata.labels", {"app.kubernetes.io/name": 1})
    assert _rendered(doc) == [
        "metadata.labels[app.kubernetes.io/name]: json: cannot unmarshal number into Go struct field "
        "ObjectMeta.metadata.labels of type string"
    ]


def test_deeply_nested_unknown_content_is_reported_not_walked():
    deep = nested(3000)
    assert _rendered(_with(VAP, "spec.extra", deep)) == [
        'spec.extra: strict decoding error: unknown field "spec.extra"'
    ]


def test_integers_must_fit_their_go_type():
    doc = _with(VAP, "metadata.generation", 2**63)
    assert _rendered(doc) == [
        f"metadata.generation: json: cannot unmarshal number {2**63} into Go struct field "
        "ObjectMeta.metadata.generation of type int64"
    ]
    assert _rendered(_with(VAP, "metadata.generation", 3.0)) == []
    assert _rendered(_with(VAP, "metadata.generation", 3.5))[0].startswith(
        "metadata.generation: json: cannot unmarshal number 3.5 into Go struct field"
    )


def test_pre_ga_api_versions_say_which_cluster_flags_serve_them():
    notes = [str(w) for w in warnings_for(MAP, version="1.34") if w.path == "apiVersion"]
    assert notes == [
        "apiVersion: admissionregistration.k8s.io/v1alpha1 MutatingAdmissionPolicy is served by Kubernetes "
        "1.34 only with the MutatingAdmissionPolicy feature gate (off by default) and "
        "--runtime-config=admissionregistration.k8s.io/v1alpha1=true"
    ]
    ga = _with(MAP, "apiVersion", "admissionregistration.k8s.io/v1")
    assert not [w for w in warnings_for(ga, version="1.36") if w.path == "apiVersion"]
    beta = _with(VAP, "apiVersion", "admissionregistration.k8s.io/v1beta1")
    assert [str(w) for w in warnings_for(beta, version="1.30") if w.path == "apiVersion"] == [
        "apiVersion: admissionregistration.k8s.io/v1beta1 ValidatingAdmissionPolicy is served by Kubernetes "
        "1.30 only with --runtime-config=admissionregistration.k8s.io/v1beta1=true"
    ]


@pytest.mark.parametrize("odd", [{1, 2}, {"k": "v"}, ["x"], b"x", {(1,): 2}, 1 + 2j])
def test_values_python_but_not_json_never_raise(odd):
    for field in ("kind", "apiVersion", "spec"):
        doc = _with(VAPB, field, odd)
        errors = (
            validate_document(doc) + warnings_for(doc) + [e for _, e in validate_documents([doc])]
        )
        assert errors and not [e for e in errors if e.message.startswith("Internal error")]
        assert isinstance(status_message(doc, errors), str)
    labels = _with(VAPB, "spec.matchResources.namespaceSelector.matchLabels", {1: "a"})
    assert validate_document(labels) == []  # JSON object keys are strings: 1 reads as "1"


@pytest.mark.parametrize("kind", [["ValidatingAdmissionPolicy"], 5, {}])
def test_a_kind_that_is_not_a_string_is_reported_not_skipped_as_another_object(kind):
    errors = validate_documents([{"kind": kind, "metadata": {"name": "x"}}], version="1.37")
    assert errors[0][1].path == "kind"
    assert errors[0][1].message.startswith("Unsupported value: ")
