"""ValidatingAdmissionPolicy evaluation as kube-apiserver answers it (validating/validator.go)."""

from __future__ import annotations

import json

import pytest

from policyeditor.engine.admission.evaluation import AdmissionRequest, evaluate
from tests import builders
from tests.builders import vap
from tests.builders import vap_binding as binding


def deployment(replicas=3, name="web", namespace="prod", labels=None):
    return builders.deployment(name, namespace, replicas, labels or None)


def configmap(name, namespace="prod", labels=None, **data):
    meta = {"name": name, "namespace": namespace}
    if labels:
        meta["labels"] = labels
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": data}


def run(docs, obj=None, old=None, **kwargs):
    request = AdmissionRequest.build(object=obj, old_object=old)
    return evaluate(docs, request, **kwargs)


MAX5 = [{"expression": "object.spec.replicas <= 5"}]


def test_a_passing_policy_allows():
    result = run([vap(validations=MAX5)], deployment(3))
    assert (result.result, result.allowed, result.status_code) == ("allow", True, 200)
    assert result.policies[0].validations[0].status == "pass"


def test_a_failing_policy_is_denied_with_the_default_message():
    result = run([vap(validations=MAX5), binding()], deployment(6))
    assert not result.allowed
    assert result.status_code == 422
    assert result.message == (
        "deployments.apps \"web\" is forbidden: ValidatingAdmissionPolicy 'limit' with binding "
        "'limit-binding' denied request: failed expression: object.spec.replicas <= 5"
    )


def test_an_unbound_policy_is_evaluated_as_if_bound_with_deny():
    result = run([vap(validations=MAX5)], deployment(6))
    assert result.result == "deny"
    assert "ValidatingAdmissionPolicy 'limit' denied request: failed expression" in result.message


def test_message_and_reason_set_the_text_and_code():
    validations = [
        {
            "expression": "object.spec.replicas <= 5",
            "message": "  at most 5  ",
            "reason": "Forbidden",
        }
    ]
    result = run([vap(validations=validations)], deployment(6))
    assert result.message.endswith("denied request: at most 5")
    assert (result.status_code, result.reason) == (403, "Forbidden")


@pytest.mark.parametrize(
    ("message_expression", "expected"),
    [
        ("'got ' + string(object.spec.replicas)", "got 6"),
        ("'   '", "static"),
        ("'line\\nbreak'", "static"),
        ("object.spec.missing", "static"),
        ("'x'.repeat(1)", "static"),
    ],
)
def test_message_expression_falls_back_to_message(message_expression, expected):
    validations = [
        {
            "expression": "object.spec.replicas <= 5",
            "message": "static",
            "messageExpression": message_expression,
        }
    ]
    result = run([vap(validations=validations)], deployment(6))
    assert result.message.endswith(f"denied request: {expected}")


def test_message_expression_over_5k_falls_back_to_the_expression():
    validations = [
        {"expression": "object.spec.replicas <= 5", "messageExpression": "'x'.repeat(1)"}
    ]
    long = [
        {"expression": "object.spec.replicas <= 5", "messageExpression": "'" + "x" * 5121 + "'"}
    ]
    assert run([vap(validations=long)], deployment(6)).message.endswith(
        "failed expression: object.spec.replicas <= 5"
    )
    assert "failed expression" in run([vap(validations=validations)], deployment(6)).message


def test_message_expressions_are_evaluated_even_for_passing_validations():
    validations = [{"expression": "true", "messageExpression": "'never shown'"}]
    result = run([vap(validations=validations)], deployment(6))
    assert result.allowed
    assert result.policies[0].validations[0].message_expression_value == "never shown"


def test_all_validations_run_and_the_first_denial_answers():
    validations = [
        {"expression": "object.spec.replicas <= 5", "message": "first"},
        {"expression": "object.spec.replicas <= 4", "message": "second"},
    ]
    result = run([vap(validations=validations)], deployment(6))
    statuses = [v.status for v in result.policies[0].validations]
    assert statuses == ["fail", "fail"]
    assert result.message.endswith("first")
    assert len(result.policies[0].denials) == 2


def test_a_runtime_error_denies_under_fail_with_the_expression_text():
    validations = [{"expression": "object.spec.nope == 1"}]
    result = run([vap(validations=validations)], deployment(6))
    assert result.result == "error" and not result.allowed
    assert (
        "expression 'object.spec.nope == 1' resulted in error: no such key: nope" in result.message
    )


def test_a_runtime_error_is_admitted_under_ignore():
    validations = [{"expression": "object.spec.nope == 1"}]
    result = run([vap(validations=validations, failurePolicy="Ignore")], deployment(6))
    assert result.result == "error" and result.allowed
    assert result.policies[0].validations[0].status == "error"


def test_a_compile_error_surfaces_at_runtime():
    result = run([vap(validations=[{"expression": "object.spec.replicas <="}])], deployment(6))
    assert not result.allowed
    assert "compilation error: compilation failed: ERROR: <input>:1:" in result.message


def test_warn_action_turns_a_denial_into_a_warning():
    result = run([vap(validations=MAX5), binding(actions=["Warn"])], deployment(6))
    assert result.allowed and result.result == "warn"
    assert result.warnings == [
        "Validation failed for ValidatingAdmissionPolicy 'limit' with binding 'limit-binding': "
        "failed expression: object.spec.replicas <= 5"
    ]


def test_audit_action_records_the_validation_failure_annotation():
    result = run([vap(validations=MAX5), binding(actions=["Audit"])], deployment(6))
    assert result.allowed and result.result == "audit"
    raw = result.audit_annotations["validation.policy.admission.k8s.io/validation_failure"]
    assert "replicas \\u003c= 5" in raw, "Go's encoding/json escapes HTML characters"
    entries = json.loads(raw)
    assert entries == [
        {
            "message": "failed expression: object.spec.replicas <= 5",
            "policy": "limit",
            "binding": "limit-binding",
            "expressionIndex": 0,
            "validationActions": ["Audit"],
        }
    ]


def test_warn_can_swallow_an_evaluation_error():
    validations = [{"expression": "object.spec.nope == 1"}]
    result = run([vap(validations=validations), binding(actions=["Warn"])], deployment(6))
    assert result.allowed
    assert "resulted in error" in result.warnings[0]


def test_audit_annotations_are_published_under_the_policy_name():
    annotations = [
        {"key": "replicas", "valueExpression": "string(object.spec.replicas)"},
        {"key": "empty", "valueExpression": "'  '"},
        {"key": "none", "valueExpression": "null"},
    ]
    result = run([vap(auditAnnotations=annotations)], deployment(6))
    assert result.allowed
    assert result.audit_annotations == {"limit/replicas": "6"}
    assert [a.status for a in result.policies[0].audit_annotations] == [
        "ok",
        "excluded",
        "excluded",
    ]


def test_an_audit_annotation_error_denies_under_fail_only():
    annotations = [{"key": "bad", "valueExpression": "object.spec.nope"}]
    denied = run([vap(auditAnnotations=annotations)], deployment(6))
    assert not denied.allowed and "no such key: nope" in denied.message
    ignored = run([vap(auditAnnotations=annotations, failurePolicy="Ignore")], deployment(6))
    assert ignored.allowed and ignored.audit_annotations == {}


def test_audit_annotations_cannot_use_the_authorizer_at_runtime():
    annotations = [
        {"key": "a", "valueExpression": "string(authorizer.path('/x').check('get').allowed())"}
    ]
    result = run([vap(auditAnnotations=annotations, failurePolicy="Ignore")], deployment(6))
    step = result.policies[0].audit_annotations[0]
    assert step.status == "error" and "no such attribute(s): authorizer" in step.error


def test_match_conditions_false_skips_the_policy():
    conditions = [{"name": "big-only", "expression": "object.spec.replicas > 10"}]
    result = run([vap(validations=MAX5, matchConditions=conditions)], deployment(6))
    assert result.allowed and result.result == "skip"
    assert result.policies[0].reason == "matchCondition 'big-only' is false"


def test_a_false_match_condition_wins_over_an_error():
    conditions = [
        {"name": "broken", "expression": "object.spec.nope == 1"},
        {"name": "no", "expression": "false"},
    ]
    result = run([vap(validations=MAX5, matchConditions=conditions)], deployment(6))
    assert result.result == "skip"


def test_a_match_condition_error_fails_closed_under_fail_and_skips_under_ignore():
    conditions = [{"name": "broken", "expression": "object.spec.nope == 1"}]
    failed = run([vap(validations=MAX5, matchConditions=conditions)], deployment(1))
    assert not failed.allowed and failed.result == "error"
    assert (
        "expression 'object.spec.nope == 1' resulted in error: no such key: nope" in failed.message
    )
    ignored = run(
        [vap(validations=MAX5, matchConditions=conditions, failurePolicy="Ignore")], deployment(6)
    )
    assert ignored.allowed and ignored.result == "skip"


def test_match_conditions_see_no_namespace_object():
    conditions = [{"name": "ns", "expression": "namespaceObject == null"}]
    ns = builders.namespace("prod")
    result = run(
        [vap(validations=MAX5, matchConditions=conditions)], deployment(6), namespace_object=ns
    )
    assert result.result == "deny"


def test_match_conditions_and_validations_sharing_one_activation_each_see_their_namespace():
    conditions = [
        {"name": "replicas", "expression": "object.spec.replicas > 0"},
        {"name": "ns", "expression": "namespaceObject == null"},
    ]
    validations = [{"expression": "namespaceObject.metadata.name == 'prod'"}]
    ns = builders.namespace("prod")
    result = run(
        [vap(validations=validations, matchConditions=conditions)],
        deployment(6),
        namespace_object=ns,
    )
    assert result.allowed and result.result == "allow", result.message


def test_variables_are_computed_once_and_shown():
    variables = [
        {"name": "replicas", "expression": "object.spec.replicas"},
        {"name": "unused", "expression": "1"},
    ]
    validations = [
        {"expression": "variables.replicas <= 5"},
        {"expression": "variables.replicas > 0"},
    ]
    result = run([vap(variables=variables, validations=validations)], deployment(6))
    shown = {v.name: (v.status, v.value) for v in result.policies[0].variables}
    assert shown == {"replicas": ("ok", 6), "unused": ("unused", None)}


def test_a_failing_variable_is_reported_with_its_name():
    variables = [{"name": "bad", "expression": "object.spec.nope"}]
    result = run(
        [vap(variables=variables, validations=[{"expression": "variables.bad == 1"}])],
        deployment(6),
    )
    assert 'composited variable "bad" fails to evaluate' in result.message


def test_params_by_name_from_resources():
    policy = vap(
        paramKind={"apiVersion": "v1", "kind": "ConfigMap"},
        validations=[{"expression": "object.spec.replicas <= int(params.data.max)"}],
    )
    bound = binding(paramRef={"name": "limits", "parameterNotFoundAction": "Deny"})
    params = [configmap("limits", max="5")]
    assert run([policy, bound], deployment(6), resources=params).result == "deny"
    assert run([policy, bound], deployment(5), resources=params).result == "allow"


def test_params_are_looked_up_in_the_request_namespace():
    policy = vap(
        paramKind={"apiVersion": "v1", "kind": "ConfigMap"},
        validations=[{"expression": "object.spec.replicas <= int(params.data.max)"}],
    )
    bound = binding(paramRef={"name": "limits", "parameterNotFoundAction": "Deny"})
    elsewhere = [configmap("limits", namespace="other", max="5")]
    result = run([policy, bound], deployment(6), resources=elsewhere)
    assert not result.allowed
    assert result.message.endswith(
        "with binding 'limit-binding' denied request: failed to configure binding: "
        "no params found for policy binding with `Deny` parameterNotFoundAction"
    )


def test_parameter_not_found_allow_evaluates_nothing():
    policy = vap(
        paramKind={"apiVersion": "v1", "kind": "ConfigMap"}, validations=[{"expression": "false"}]
    )
    bound = binding(paramRef={"name": "missing", "parameterNotFoundAction": "Allow"})
    result = run([policy, bound, configmap("other")], deployment(6))
    assert result.allowed and result.result == "skip"


def test_a_param_selector_evaluates_once_per_param_and_any_denial_denies():
    policy = vap(
        paramKind={"apiVersion": "v1", "kind": "ConfigMap"},
        validations=[{"expression": "object.spec.replicas <= int(params.data.max)"}],
    )
    bound = binding(
        paramRef={"selector": {"matchLabels": {"kind": "limit"}}, "parameterNotFoundAction": "Deny"}
    )
    params = [
        configmap("a", labels={"kind": "limit"}, max="10"),
        configmap("b", labels={"kind": "limit"}, max="4"),
        configmap("c", max="1"),
    ]
    result = run([policy, bound], deployment(6), resources=params)
    assert [p.param for p in result.policies] == ["prod/a", "prod/b"]
    assert [p.result for p in result.policies] == ["allow", "deny"]
    assert not result.allowed


def test_inline_params_replace_param_ref_resolution():
    policy = vap(
        paramKind={"apiVersion": "v1", "kind": "ConfigMap"},
        validations=[{"expression": "object.spec.replicas <= int(params.data.max)"}],
    )
    result = run([policy], deployment(6), params=configmap("x", max="7"))
    assert result.allowed


def test_a_policy_with_param_kind_but_unbound_sees_null_params():
    policy = vap(
        paramKind={"apiVersion": "v1", "kind": "ConfigMap"},
        validations=[{"expression": "params == null"}],
    )
    assert run([policy], deployment(6)).allowed


def test_a_cluster_scoped_param_kind_refuses_a_namespace():
    policy = vap(
        paramKind={"apiVersion": "v1", "kind": "Namespace"}, validations=[{"expression": "true"}]
    )
    bound = binding(paramRef={"name": "x", "namespace": "prod", "parameterNotFoundAction": "Deny"})
    result = run([policy, bound], deployment(6))
    assert (
        "paramRef.namespace must not be provided for a cluster-scoped `paramKind`" in result.message
    )


def test_an_unknown_param_kind_is_a_configuration_error():
    policy = vap(
        paramKind={"apiVersion": "example.com/v1", "kind": "Limit"},
        validations=[{"expression": "true"}],
    )
    bound = binding(paramRef={"name": "x", "parameterNotFoundAction": "Deny"})
    result = run([policy, bound], deployment(6))
    assert "paramKind kind `example.com/v1, Kind=Limit` not known" in result.message


def test_configuration_errors_are_dropped_under_ignore():
    policy = vap(
        paramKind={"apiVersion": "v1", "kind": "ConfigMap"},
        validations=[{"expression": "true"}],
        failurePolicy="Ignore",
    )
    bound = binding(paramRef={"name": "x", "parameterNotFoundAction": "Deny"})
    result = run([policy, bound], deployment(6))
    assert result.allowed and result.result == "error"


def test_a_request_the_policy_does_not_match_is_skipped_with_the_reason():
    result = run([vap(validations=[{"expression": "false"}])], old=deployment(6))
    assert result.allowed and result.result == "skip"
    assert result.policies[0].reason == "operation DELETE not in [CREATE, UPDATE]"


def test_a_binding_match_resources_narrows_the_policy():
    bound = binding(matchResources={"objectSelector": {"matchLabels": {"team": "a"}}})
    result = run(
        [vap(validations=[{"expression": "false"}]), bound], deployment(6, labels={"team": "b"})
    )
    assert result.allowed and result.result == "skip"
    assert result.policies[0].reason.startswith("binding matchResources: objectSelector")


def test_namespace_object_is_visible_to_validations():
    ns = builders.namespace("prod", tier="gold")
    validations = [{"expression": "namespaceObject.metadata.labels.tier == 'gold'"}]
    assert run([vap(validations=validations)], deployment(1), resources=[ns]).allowed


def test_a_missing_namespace_among_modelled_namespaces_is_not_found():
    other = builders.namespace("elsewhere")
    result = run([vap(validations=MAX5, failurePolicy="Ignore")], deployment(1), resources=[other])
    # The dispatcher's namespace GET fails the request itself, whatever the failurePolicy.
    assert (result.allowed, result.status_code, result.reason) == (False, 404, "NotFound")
    assert result.message == 'namespaces "prod" not found'


def test_a_missing_namespace_does_not_matter_when_nothing_matches():
    other = builders.namespace("elsewhere")
    result = run([vap(validations=MAX5)], old=deployment(1), resources=[other])
    assert result.allowed and result.result == "skip"


def _costly_message_expression_after(expression: str) -> tuple[dict, list[dict]]:
    """A deployment with 20 items, and a validation of `expression` then a failing one whose
    messageExpression walks the items."""
    obj = deployment(1)
    obj["spec"]["items"] = list(range(20))
    validations = [
        {"expression": expression},
        {
            "expression": "false",
            "messageExpression": "object.spec.items.all(x, x >= 0) ? 'a' : 'b'",
        },
    ]
    return obj, validations


def test_a_failed_message_expression_pass_keeps_each_validation_error_first(monkeypatch):
    from policyeditor.engine.admission import cel_bindings

    obj, validations = _costly_message_expression_after("object.spec.nope == 1")
    costs = run([vap(validations=validations)], obj).policies[0].validations
    monkeypatch.setattr(cel_bindings, "RUNTIME_BUDGET", sum(v.cost for v in costs) - 5)
    steps = run([vap(validations=validations)], obj).policies[0].validations
    assert "no such key: nope" in steps[0].error
    assert steps[1].error.startswith("failed messageExpression: ")


def test_old_object_and_request_are_visible_on_update():
    validations = [
        {
            "expression": "request.operation == 'UPDATE' && object.spec.replicas >= oldObject.spec.replicas"
        }
    ]
    assert run([vap(validations=validations)], deployment(4), deployment(3)).allowed
    assert not run([vap(validations=validations)], deployment(2), deployment(3)).allowed


def test_to_dict_is_json_serialisable():
    result = run([vap(validations=MAX5), binding(actions=["Warn", "Audit"])], deployment(6))
    data = json.loads(json.dumps(result.to_dict()))
    assert data["policies"][0]["validations"][0]["status"] == "fail"
    assert data["result"] == "warn"


def test_an_unsupported_version_is_a_clear_error():
    result = run([vap(validations=MAX5)], deployment(6), version="1.2")
    assert result.result == "error" and "not supported" in result.message


class GroupAuthorizer:
    """Allows verbs on deployments to members of group "admins", nothing else."""

    def __init__(self):
        self.seen = []

    def authorize(self, attributes):
        from policyeditor.engine.cel.library.authz import AuthorizationDecision

        self.seen.append(attributes)
        if "admins" in (attributes.get("groups") or []):
            return AuthorizationDecision("allow", reason="admin")
        return AuthorizationDecision("deny", reason="not an admin")


def test_validations_can_check_the_authorizer_for_the_request_user():
    validations = [{"expression": "authorizer.requestResource.check('create').allowed()"}]
    obj = deployment(1)
    admin = AdmissionRequest.build(object=obj, user_info={"username": "ann", "groups": ["admins"]})
    other = AdmissionRequest.build(object=obj, user_info={"username": "bob", "groups": ["dev"]})
    authorizer = GroupAuthorizer()
    assert evaluate([vap(validations=validations)], admin, authorizer=authorizer).allowed
    assert not evaluate([vap(validations=validations)], other, authorizer=authorizer).allowed
    checked = authorizer.seen[0]
    assert checked["resource"] == "deployments" and checked["verb"] == "create"
    assert checked["namespace"] == "prod" and checked["user"] == "ann"


def test_message_expressions_have_no_authorizer():
    validations = [
        {
            "expression": "false",
            "message": "fallback",
            "messageExpression": "string(authorizer.path('/x').check('get').allowed())",
        }
    ]
    result = run([vap(validations=validations)], deployment(1), authorizer=GroupAuthorizer())
    assert result.message.endswith("denied request: fallback")


def test_running_out_of_budget_stops_the_validations_with_one_error(monkeypatch):
    from policyeditor.engine.admission import cel_bindings

    monkeypatch.setattr(cel_bindings, "RUNTIME_BUDGET", 40)
    obj = deployment(1)
    obj["spec"]["items"] = list(range(20))
    validations = [{"expression": "object.spec.items.all(x, x >= 0)"}] * 3
    result = run([vap(validations=validations)], obj)
    assert not result.allowed and result.result == "error"
    assert result.message.endswith(
        "denied request: validation failed due to running out of cost budget, "
        "no further validation rules will be run"
    )
    assert len(result.policies[0].denials) == 1


def test_a_message_expression_budget_failure_turns_every_decision_into_an_error(monkeypatch):
    from policyeditor.engine.admission import cel_bindings

    obj, validations = _costly_message_expression_after("true")
    unlimited = run([vap(validations=validations)], obj)
    assert unlimited.message.endswith("denied request: a")
    cost = sum(v.cost for v in unlimited.policies[0].validations)
    monkeypatch.setattr(cel_bindings, "RUNTIME_BUDGET", cost - 5)
    result = run([vap(validations=validations)], obj)
    assert [v.status for v in result.policies[0].validations] == ["error", "error"]
    assert (
        "failed messageExpression: validation failed due to running out of cost budget"
        in result.message
    )


@pytest.mark.parametrize(
    ("reason", "code"),
    [("Forbidden", 403), ("Invalid", 422), ("RequestEntityTooLarge", 413), ("Unauthorized", 401)],
)
def test_the_validation_reason_sets_the_http_code(reason, code):
    validations = [{"expression": "false", "reason": reason}]
    result = run([vap(validations=validations)], deployment(1))
    assert (result.status_code, result.reason) == (code, reason)


def test_an_equivalent_match_reports_the_matched_kind_to_cel():
    rules = {
        "resourceRules": [
            {
                "apiGroups": ["extensions"],
                "apiVersions": ["v1beta1"],
                "operations": ["CREATE"],
                "resources": ["deployments"],
            }
        ]
    }
    validations = [
        {
            "expression": "request.kind.group == 'extensions' && request.requestKind.group == 'apps'"
            " && request.resource.version == 'v1beta1' && object.apiVersion == 'extensions/v1beta1'"
        }
    ]
    result = run([vap(validations=validations, matchConstraints=rules)], deployment(1))
    assert result.allowed and result.result == "allow"
    assert result.policies[0].matched_resource["group"] == "extensions"
    exact = dict(rules, matchPolicy="Exact")
    assert (
        run([vap(validations=validations, matchConstraints=exact)], deployment(1)).result == "skip"
    )


def test_param_ref_namespace_overrides_the_request_namespace():
    policy = vap(
        paramKind={"apiVersion": "v1", "kind": "ConfigMap"},
        validations=[{"expression": "object.spec.replicas <= int(params.data.max)"}],
    )
    bound = binding(
        paramRef={"name": "limits", "namespace": "policy", "parameterNotFoundAction": "Deny"}
    )
    params = [configmap("limits", namespace="policy", max="2"), configmap("limits", max="9")]
    result = run([policy, bound], deployment(5), resources=params)
    assert result.policies[0].param == "policy/limits"
    assert result.result == "deny"


def test_a_namespaced_param_kind_cannot_serve_a_cluster_scoped_request():
    rules = {
        "resourceRules": [
            {
                "apiGroups": [""],
                "apiVersions": ["v1"],
                "operations": ["CREATE"],
                "resources": ["nodes"],
            }
        ]
    }
    policy = vap(
        matchConstraints=rules,
        paramKind={"apiVersion": "v1", "kind": "ConfigMap"},
        validations=[{"expression": "true"}],
    )
    bound = binding(paramRef={"name": "x", "parameterNotFoundAction": "Deny"})
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}}
    result = run([policy, bound], node)
    assert result.message.endswith(
        "failed to configure binding: cannot use namespaced paramRef in policy binding that "
        "matches cluster-scoped resources"
    )


def test_several_bindings_each_apply_their_actions():
    docs = [
        vap(validations=MAX5),
        binding("warn-me", actions=["Warn"]),
        binding("audit-me", actions=["Audit"]),
    ]
    result = run(docs, deployment(6))
    assert result.allowed
    assert [p.binding for p in result.policies] == ["warn-me", "audit-me"]
    assert len(result.warnings) == 1
    assert "validation.policy.admission.k8s.io/validation_failure" in result.audit_annotations


def test_policy_and_binding_filters_select_what_is_evaluated():
    docs = [
        vap("a", validations=MAX5),
        vap("b", validations=[{"expression": "false"}]),
        binding("bb", policy="b"),
    ]
    assert run(docs, deployment(1), policy="a").allowed
    only_b = run(docs, deployment(1), binding="bb")
    assert [p.policy for p in only_b.policies] == ["b"] and not only_b.allowed
    missing = run(docs, deployment(1), policy="zzz")
    assert "policy 'zzz' not found" in missing.errors


def test_a_namespace_delete_is_selected_by_the_stored_namespace_labels():
    rules = {
        "resourceRules": [
            {
                "apiGroups": [""],
                "apiVersions": ["v1"],
                "operations": ["DELETE"],
                "resources": ["namespaces"],
            }
        ],
        "namespaceSelector": {"matchLabels": {"protected": "true"}},
    }
    policy = vap(
        matchConstraints=rules, validations=[{"expression": "false", "message": "protected"}]
    )
    protected = builders.namespace("keep", protected="true")
    other = builders.namespace("tmp")
    assert run([policy], old=protected).message.endswith("denied request: protected")
    assert run([policy], old=other).result == "skip"


def test_an_explicit_namespace_object_is_the_request_namespace():
    ns = builders.namespace("given", tier="gold")
    validations = [{"expression": "namespaceObject.metadata.name == 'given'"}]
    assert run([vap(validations=validations)], deployment(1), namespace_object=ns).allowed


def test_unserved_documents_outside_the_policy_filter_do_not_matter():
    map_v1 = builders.document("MutatingAdmissionPolicy", "other", {})
    result = run([vap(validations=MAX5), map_v1], deployment(6), version="1.34", policy="limit")
    assert result.result == "deny" and result.errors == []


def test_a_denial_answers_deny_even_when_another_policy_errored_under_ignore():
    broken = vap(
        "broken", validations=[{"expression": "object.spec.nope == 1"}], failurePolicy="Ignore"
    )
    result = run([broken, vap(validations=MAX5)], deployment(6))
    assert (result.result, result.allowed) == ("deny", False)
    assert [p.result for p in result.policies] == ["error", "deny"]


def test_connect_requests_carry_the_options_object():
    rules = {
        "resourceRules": [
            {
                "apiGroups": [""],
                "apiVersions": ["v1"],
                "operations": ["CONNECT"],
                "resources": ["pods/exec"],
            }
        ]
    }
    validations = [
        {"expression": "!('sh' in object.command)", "message": "no shells"},
        {
            "expression": "request.subResource == 'exec' && request.options == null && oldObject == null"
        },
    ]
    request = AdmissionRequest.build(
        object={"apiVersion": "v1", "kind": "PodExecOptions", "command": ["sh"]},
        operation="CONNECT",
        overrides={"name": "web", "namespace": "prod"},
    )
    result = evaluate([vap(matchConstraints=rules, validations=validations)], request)
    assert (
        result.message
        == "pods \"web\" is forbidden: ValidatingAdmissionPolicy 'limit' denied request: no shells"
    )
    assert [v.status for v in result.policies[0].validations] == ["fail", "pass"]


def test_delete_requests_see_a_null_object_and_delete_options():
    rules = {
        "resourceRules": [
            {
                "apiGroups": ["apps"],
                "apiVersions": ["v1"],
                "operations": ["DELETE"],
                "resources": ["deployments"],
            }
        ]
    }
    validations = [
        {
            "expression": "object == null && request.options.kind == 'DeleteOptions' && oldObject.metadata.name == 'web'"
        }
    ]
    result = run([vap(matchConstraints=rules, validations=validations)], old=deployment())
    assert result.result == "allow"


def test_an_audit_value_of_another_type_is_an_error_naming_the_cel_type():
    annotations = [{"key": "k", "valueExpression": "dyn(1)"}]
    result = run([vap(auditAnnotations=annotations)], deployment(1))
    assert result.message.endswith(
        "denied request: valueExpression 'dyn(1)' resulted in unsupported return type: int. "
        "Return type must be either string or null."
    )


def test_a_denial_carries_one_cause_with_the_policy_text():
    result = run([vap(validations=MAX5), binding()], deployment(6))
    assert result.causes == [
        "ValidatingAdmissionPolicy 'limit' with binding 'limit-binding' denied request: "
        "failed expression: object.spec.replicas <= 5"
    ]
