"""validation.go's rules one by one: failure policy, bindings, MAP, match conditions, audit
annotations, messages, variables, resources (kubernetes/kubernetes
pkg/apis/admissionregistration/validation/validation.go)."""

from __future__ import annotations

from policyeditor.engine.validation.documents import validate_document
from tests.engine.validation.fixtures import MAP, MAPB, VAP, VAPB
from tests.engine.validation.fixtures import with_value as _with


def _rendered(doc, **kwargs) -> list[str]:
    return [str(error) for error in validate_document(doc, **kwargs)]


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
