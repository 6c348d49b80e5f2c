"""API-server validation: served versions, strict decoding, defaulting, update rules, limits."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from policyeditor.engine.errors import FieldError
from policyeditor.engine.manifests import load_documents
from policyeditor.engine.validation import (
    status_message,
    validate_document,
    validate_documents,
    warnings_for,
)

DOCS = load_documents(
    """
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: demo-policy.example.com
spec:
  matchConstraints:
    resourceRules:
    - apiGroups:   ["apps"]
      apiVersions: ["v1"]
      operations:  ["CREATE", "UPDATE"]
      resources:   ["deployments"]
  validations:
  - expression: "object.spec.replicas <= 5"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: demo-binding-test.example.com
spec:
  policyName: demo-policy.example.com
  validationActions: [Deny]
  matchResources:
    namespaceSelector:
      matchLabels:
        environment: test
---
apiVersion: admissionregistration.k8s.io/v1alpha1
kind: MutatingAdmissionPolicy
metadata:
  name: sidecar-policy.example.com
spec:
  paramKind: {kind: Sidecar, apiVersion: mutations.example.com/v1}
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["pods"]
  matchConditions:
  - name: does-not-already-have-sidecar
    expression: "!object.spec.initContainers.exists(ic, ic.name == \\"mesh-proxy\\")"
  failurePolicy: Fail
  reinvocationPolicy: IfNeeded
  mutations:
  - patchType: "ApplyConfiguration"
    applyConfiguration:
      expression: >
        Object{
          spec: Object.spec{
            initContainers: [
              Object.spec.initContainers{
                name: "mesh-proxy",
                image: "mesh/proxy:v1.0.0"
              }
            ]
          }
        }
---
apiVersion: admissionregistration.k8s.io/v1alpha1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: sidecar-binding-test.example.com
spec:
  policyName: sidecar-policy.example.com
  paramRef:
    name: meshproxy-v1.0.0
    namespace: default
"""
)
VAP, VAPB, MAP, MAPB = DOCS


def _rendered(doc, **kwargs) -> list[str]:
    return [str(error) for error in validate_document(doc, **kwargs)]


def _with(doc: dict, path: str, value) -> dict:
    """A copy of doc with the dotted path set (None deletes it)."""
    doc = copy.deepcopy(doc)
    target = doc
    parts = path.split(".")
    for part in parts[:-1]:
        target = target[int(part)] if isinstance(target, list) else target[part]
    if value is None:
        target.pop(parts[-1], None)
    else:
        target[parts[-1]] = value
    return doc


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


def test_failure_policy_values_are_checked():
    assert _rendered(_with(VAP, "spec.failurePolicy", "other")) == [
        'spec.failurePolicy: Unsupported value: "other": supported values: "Fail", "Ignore"'
    ]


def test_binding_validation_actions_rules():
    assert _rendered(_with(VAPB, "spec.validationActions", None)) == [
        "spec.validationActions: Required value: at least one validation action is required"
    ]
    assert _rendered(_with(VAPB, "spec.validationActions", ["Deny", "Warn"])) == [
        'spec.validationActions: Invalid value: ["Deny","Warn"]: must not contain both Deny and Warn '
        "(repeating the same validation failure information in the API response and headers serves no purpose)"
    ]


def test_binding_param_ref_is_validated_and_v1_has_no_default_action():
    doc = _with(VAPB, "spec.paramRef", {"name": "a/b"})
    assert _rendered(doc) == [
        "spec.paramRef.name: Invalid value: \"a/b\": may not contain '/'",
        "spec.paramRef.parameterNotFoundAction: Required value",
    ]
    doc = _with(VAPB, "spec.paramRef", {"selector": {}, "parameterNotFoundAction": "Maybe"})
    assert _rendered(doc) == [
        'spec.paramRef.parameterNotFoundAction: Unsupported value: "Maybe": supported values: "Deny", "Allow"'
    ]


def test_binding_policy_name_must_be_a_dns_subdomain():
    rendered = _rendered(_with(VAPB, "spec.policyName", "Not_Valid"))
    assert rendered[0].startswith(
        'spec.policyName: Invalid value: "Not_Valid": a lowercase RFC 1123 subdomain'
    )


def test_binding_match_resources_path_is_spelled_correctly():
    doc = _with(VAPB, "spec.matchResources.matchPolicy", "Sometimes")
    assert _rendered(doc) == [
        'spec.matchResources.matchPolicy: Unsupported value: "Sometimes": supported values: "Equivalent", "Exact"'
    ]


def test_mutating_binding_refuses_delete_without_an_index():
    doc = _with(
        MAPB,
        "spec.matchResources",
        {
            "resourceRules": [
                {
                    "operations": ["DELETE"],
                    "apiGroups": [""],
                    "apiVersions": ["v1"],
                    "resources": ["pods"],
                }
            ]
        },
    )
    assert _rendered(doc) == [
        'spec.matchResources.resourceRules.operations: Unsupported value: "DELETE": supported values: '
        '"*", "CONNECT", "CREATE", "UPDATE"'
    ]


def test_mutating_policy_requires_reinvocation_policy_and_known_patch_types():
    doc = _with(MAP, "spec.reinvocationPolicy", None)
    doc["spec"]["mutations"] = [{"patchType": "JSONPatch"}, {"patchType": "Merge"}]
    assert _rendered(doc, version="1.34") == [
        "spec.mutations[0].jsonPatch: Required value: must be specified when patchType is JSONPatch",
        'spec.mutations[1].patchType: Unsupported value: "Merge": supported values: "ApplyConfiguration", "JSONPatch"',
        "spec.reinvocationPolicy: Required value",
    ]


def test_match_conditions_limit_and_names():
    conditions = [{"name": f"c{i}", "expression": "true"} for i in range(65)]
    conditions[1]["name"] = "c0"
    conditions[2]["name"] = ""
    rendered = _rendered(_with(VAP, "spec.matchConditions", conditions))
    assert rendered[:3] == [
        "spec.matchConditions: Too many: 65: must have at most 64 items",
        'spec.matchConditions[1].name: Duplicate value: "c0"',
        "spec.matchConditions[2].name: Required value",
    ]


def test_audit_annotation_rules():
    annotations = [{"key": f"k{i}", "valueExpression": "'v'"} for i in range(21)]
    annotations[1]["key"] = "k0"
    annotations[2]["valueExpression"] = "  "
    annotations[3]["valueExpression"] = "'" + "x" * 5200 + "'"
    rendered = _rendered(_with(VAP, "spec.auditAnnotations", annotations))
    assert rendered[0].startswith("spec.auditAnnotations: Invalid value: [")
    assert rendered[0].endswith("must not have more than 20 auditAnnotations")
    assert 'spec.auditAnnotations[1].key: Duplicate value: "k0"' in rendered
    assert (
        "spec.auditAnnotations[2].valueExpression: Required value: valueExpression is not specified"
        in rendered
    )
    assert (
        "spec.auditAnnotations[3].valueExpression: Required value: must not exceed 5120 bytes in length"
        in rendered
    )


def test_audit_annotation_key_needs_a_policy_name():
    doc = _with(VAP, "spec.auditAnnotations", [{"key": "k", "valueExpression": "'v'"}])
    doc["metadata"] = {}
    assert _rendered(doc) == [
        "metadata.name: Required value: name or generateName is required",
        'spec.auditAnnotations[0].key: Invalid value: "k": requires metadata.name be non-empty',
    ]


def test_generate_name_stands_in_for_the_name_in_audit_keys():
    doc = _with(VAP, "spec.auditAnnotations", [{"key": "k", "valueExpression": "'v'"}])
    doc["metadata"] = {"generateName": "policy-"}
    assert _rendered(doc) == []
    doc["metadata"] = {"generateName": "Policy-"}
    rendered = _rendered(doc)
    assert rendered[0].startswith(
        'metadata.generateName: Invalid value: "Policy-": a lowercase RFC 1123'
    )
    assert rendered[1].startswith(
        'spec.auditAnnotations[0].key: Invalid value: "Policy-x7k2q/k": prefix part'
    )


def test_validation_message_and_reason_rules():
    validations = [
        {"expression": "true", "message": "   "},
        {"expression": "true", "message": "two\nlines"},
        {"expression": "true", "reason": "Unauthorized"},
        {"expression": "true", "messageExpression": "  "},
    ]
    assert _rendered(_with(VAP, "spec.validations", validations)) == [
        'spec.validations[0].message: Invalid value: "   ": must be non-empty if specified',
        'spec.validations[1].message: Invalid value: "two\\nlines": must not contain line breaks',
        'spec.validations[2].reason: Unsupported value: "Unauthorized": supported values: "Forbidden", '
        '"Invalid", "RequestEntityTooLarge"',
        'spec.validations[3].messageExpression: Invalid value: "  ": must be non-empty if specified',
    ]


def test_variable_names_must_be_cel_identifiers_and_unique():
    variables = [
        {"name": "4ever", "expression": "1"},
        {"name": "in", "expression": "1"},
        {"name": "ok", "expression": "1"},
        {"name": "ok", "expression": "2"},
        {"name": " ", "expression": " "},
    ]
    assert _rendered(_with(VAP, "spec.variables", variables)) == [
        'spec.variables[0].name: Invalid value: "4ever": must be a valid CEL identifier',
        'spec.variables[1].name: Invalid value: "in": must be a valid CEL identifier',
        'spec.variables[3].name: Duplicate value: "ok"',
        "spec.variables[4].name: Required value: name is not specified",
        "spec.variables[4].expression: Required value: expression is not specified",
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


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=12,
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
    deep: dict = {}
    node = deep
    for _ in range(3000):
        node["x"] = {}
        node = node["x"]
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


def test_resource_wildcard_checks_scan_in_order_like_go():
    def resources_errors(resources):
        doc = _with(
            VAP,
            "spec.matchConstraints.resourceRules",
            [
                {
                    "apiGroups": ["a"],
                    "apiVersions": ["v1"],
                    "operations": ["CREATE"],
                    "resources": resources,
                }
            ],
        )
        return _rendered(doc)

    assert resources_errors(["*", "a"]) == [
        'spec.matchConstraints.resourceRules[0].resources: Invalid value: ["*","a"]: if \'*\' is present, '
        "must not specify other resources without subresources"
    ]
    # Go assigns the "plain resource seen" flag instead of OR-ing it: a trailing "*" clears it.
    assert resources_errors(["a", "*"]) == []
    assert resources_errors(["a/x", "a/*"]) == []  # the a/* check only looks at later entries
    assert resources_errors(["a/*", "a/x"]) == [
        "spec.matchConstraints.resourceRules[0].resources[1]: Invalid value: \"a/x\": if 'a/*' is present, "
        "must not specify a/x"
    ]
    assert resources_errors(["", "b"]) == [
        "spec.matchConstraints.resourceRules[0].resources[0]: Required value"
    ]


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
