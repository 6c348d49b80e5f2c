"""MutatingAdmissionPolicy evaluation: both patch types, ordering, errors, bindings, reinvocation."""

from __future__ import annotations

from policyeditor.engine.admission.evaluation import AdmissionRequest, evaluate
from tests.builders import document, rules, widget_crd

RULES = rules("configmaps", group="")


def json_patch(expression):
    return {"patchType": "JSONPatch", "jsonPatch": {"expression": expression}}


def apply_config(expression):
    return {"patchType": "ApplyConfiguration", "applyConfiguration": {"expression": expression}}


def map_policy(name="mutate", mutations=(), reinvocation="Never", **spec):
    body = {
        "matchConstraints": RULES,
        "mutations": list(mutations),
        "reinvocationPolicy": reinvocation,
    }
    body.update(spec)
    return document("MutatingAdmissionPolicy", name, body)


def map_binding(name, policy, **spec):
    body = {"policyName": policy}
    body.update(spec)
    return document("MutatingAdmissionPolicyBinding", name, body)


def configmap(name="cm", annotations=None, labels=None, data=None):
    meta = {"name": name, "namespace": "default"}
    if annotations is not None:
        meta["annotations"] = annotations
    if labels is not None:
        meta["labels"] = labels
    obj = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta}
    if data is not None:
        obj["data"] = data
    return obj


def run(docs, obj=None, old=None, **kwargs):
    return evaluate(docs, AdmissionRequest.build(object=obj, old_object=old), **kwargs)


ADD_LABEL = apply_config('Object{metadata: Object.metadata{labels: {"team": "a"}}}')


def test_apply_configuration_merges_into_the_object_and_reports_a_diff():
    result = run([map_policy(mutations=[ADD_LABEL])], configmap(labels={"app": "x"}))
    assert result.allowed and result.result == "allow"
    assert result.object["metadata"]["labels"] == {"app": "x", "team": "a"}
    step = result.policies[0].mutations[0]
    assert step.status == "applied"
    assert "+    team: a" in step.diff
    assert result.patch == [{"op": "add", "path": "/metadata/labels/team", "value": "a"}]


def test_json_patch_mutation_records_its_operations():
    patch = json_patch('[JSONPatch{op: "add", path: "/data", value: {"k": "v"}}]')
    result = run([map_policy(mutations=[patch])], configmap())
    assert result.object["data"] == {"k": "v"}
    assert result.policies[0].mutations[0].patch == [
        {"op": "add", "path": "/data", "value": {"k": "v"}}
    ]


def test_mutations_run_in_order_and_later_ones_see_earlier_changes():
    first = json_patch('[JSONPatch{op: "add", path: "/data", value: {"n": "1"}}]')
    second = json_patch('[JSONPatch{op: "replace", path: "/data/n", value: object.data.n + "2"}]')
    result = run([map_policy(mutations=[first, second])], configmap())
    assert result.object["data"] == {"n": "12"}


def test_a_failing_mutation_is_recorded_and_the_next_still_runs_but_fail_denies():
    broken = json_patch('[JSONPatch{op: "remove", path: "/data/missing"}]')
    result = run([map_policy(mutations=[broken, ADD_LABEL])], configmap())
    statuses = [m.status for m in result.policies[0].mutations]
    assert statuses == ["error", "applied"]
    assert (result.allowed, result.status_code, result.reason) == (False, 403, "Invalid")
    # The MAP dispatcher answers with the policy error itself, without "<resource> is forbidden".
    assert result.message == (
        'policy "mutate" denied request: JSON Patch: '
        'remove operation does not apply: doc is missing path: "/data/missing": missing value'
    )


def test_failure_policy_ignore_turns_a_broken_mutation_into_a_no_op():
    broken = json_patch('[JSONPatch{op: "remove", path: "/data/missing"}]')
    result = run([map_policy(mutations=[broken], failurePolicy="Ignore")], configmap())
    assert result.allowed and result.result == "error"
    assert result.object == configmap()


def test_a_configuration_error_is_forbidden():
    policy = map_policy(mutations=[ADD_LABEL], paramKind={"apiVersion": "v1", "kind": "ConfigMap"})
    bound = map_binding(
        "b1", "mutate", paramRef={"name": "nope", "parameterNotFoundAction": "Deny"}
    )
    result = run([policy, bound], configmap())
    assert (result.status_code, result.reason) == (403, "Forbidden")
    assert result.message == (
        "policy 'mutate' with binding 'b1' denied request: failed to configure binding: "
        "no params found for policy binding with `Deny` parameterNotFoundAction"
    )


def test_a_binding_names_itself_in_the_denial():
    broken = json_patch('[JSONPatch{op: "remove", path: "/data/missing"}]')
    result = run([map_policy(mutations=[broken]), map_binding("b1", "mutate")], configmap())
    assert "policy 'mutate' with binding 'b1' denied request: JSON Patch:" in result.message


def test_atomic_fields_are_refused_in_apply_configurations():
    policy = map_policy(
        mutations=[
            apply_config(
                'Object{metadata: Object.metadata{ownerReferences: [Object.metadata.ownerReferences{uid: "1"}]}}'
            )
        ]
    )
    result = run([policy], configmap())
    assert not result.allowed
    # OwnerReference is an atomic struct; smd.go names list elements by index.
    assert result.message.endswith(
        "error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, "
        "maps or structs: .metadata.ownerReferences[0]"
    )


def test_delete_is_never_mutated():
    result = run([map_policy(mutations=[ADD_LABEL])], old=configmap())
    assert result.result == "skip"
    assert result.object is None


def test_match_conditions_gate_mutations():
    conditions = [{"name": "only-x", "expression": "object.metadata.name == 'x'"}]
    result = run([map_policy(mutations=[ADD_LABEL], matchConditions=conditions)], configmap("y"))
    assert result.result == "skip" and result.object == configmap("y")


def test_variables_are_available_to_mutations():
    variables = [{"name": "who", "expression": "request.userInfo.username"}]
    mutation = apply_config('Object{metadata: Object.metadata{annotations: {"by": variables.who}}}')
    request = AdmissionRequest.build(object=configmap(), user_info={"username": "ann"})
    result = evaluate([map_policy(mutations=[mutation], variables=variables)], request)
    assert result.object["metadata"]["annotations"] == {"by": "ann"}
    assert result.policies[0].variables[0].value == "ann"


def test_two_bindings_with_params_each_mutate():
    policy = map_policy(
        paramKind={"apiVersion": "v1", "kind": "ConfigMap"},
        mutations=[
            apply_config("Object{metadata: Object.metadata{annotations: {params.data.key: 'yes'}}}")
        ],
    )
    params = [configmap("p1", data={"key": "one"}), configmap("p2", data={"key": "two"})]
    b1 = map_binding("b1", "mutate", paramRef={"name": "p1", "parameterNotFoundAction": "Deny"})
    b2 = map_binding("b2", "mutate", paramRef={"name": "p2", "parameterNotFoundAction": "Deny"})
    result = run([policy, b1, b2], configmap(), resources=params)
    assert result.object["metadata"]["annotations"] == {"one": "yes", "two": "yes"}


INCREMENT = apply_config(
    "Object{metadata: Object.metadata{annotations: "
    '{"foo": string(int(object.metadata.annotations["foo"]) + 1)}}}'
)


def test_reinvocation_reruns_if_needed_policies_once():
    policies = [
        map_policy("a", [INCREMENT], "IfNeeded"),
        map_policy("b", [INCREMENT], "IfNeeded"),
        map_policy("c", [INCREMENT], "Never"),
    ]
    result = run(policies, configmap(annotations={"foo": "0"}))
    assert result.object["metadata"]["annotations"]["foo"] == "5"
    runs = [(o.policy, o.invocation) for o in result.policies]
    assert runs == [("a", 1), ("b", 1), ("c", 1), ("a", 2), ("b", 2)]


def test_never_policies_do_not_reinvoke():
    policies = [map_policy("a", [INCREMENT], "Never"), map_policy("b", [INCREMENT], "Never")]
    result = run(policies, configmap(annotations={"foo": "0"}))
    assert result.object["metadata"]["annotations"]["foo"] == "2"


def test_a_lone_if_needed_policy_is_reinvoked_once_after_patching():
    # mutating/dispatcher.go: a pass that applied any patch promotes the IfNeeded invocations
    # still pending (lastVersionedAttr.Dirty), so the chain's single reinvocation runs it again.
    result = run([map_policy("a", [INCREMENT], "IfNeeded")], configmap(annotations={"foo": "0"}))
    assert result.object["metadata"]["annotations"]["foo"] == "2"
    assert [o.invocation for o in result.policies] == [1, 2]


def test_two_if_needed_policies_both_run_twice():
    policies = [map_policy("a", [INCREMENT], "IfNeeded"), map_policy("b", [INCREMENT], "IfNeeded")]
    result = run(policies, configmap(annotations={"foo": "0"}))
    assert result.object["metadata"]["annotations"]["foo"] == "4"


def test_an_if_needed_policy_whose_match_condition_is_false_is_not_reinvoked():
    conditions = [{"name": "never", "expression": "false"}]
    policies = [
        map_policy("a", [INCREMENT], "IfNeeded", matchConditions=conditions),
        map_policy("b", [INCREMENT], "Never"),
    ]
    result = run(policies, configmap(annotations={"foo": "0"}))
    assert result.object["metadata"]["annotations"]["foo"] == "1"
    assert [(o.policy, o.invocation) for o in result.policies] == [("a", 1), ("b", 1)]


def test_validating_policies_see_the_mutated_object():
    vap = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": "needs-team"},
        "spec": {
            "matchConstraints": RULES,
            "validations": [{"expression": "object.metadata.labels.team == 'a'"}],
        },
    }
    assert run([map_policy(mutations=[ADD_LABEL]), vap], configmap(labels={})).allowed
    assert not run([vap], configmap(labels={})).allowed


def test_a_mutation_error_stops_before_validating_admission():
    vap = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": "never"},
        "spec": {"matchConstraints": RULES, "validations": [{"expression": "false"}]},
    }
    broken = json_patch('[JSONPatch{op: "remove", path: "/nope"}]')
    result = run([map_policy(mutations=[broken]), vap], configmap())
    assert [o.kind for o in result.policies] == ["MutatingAdmissionPolicy"]
    assert 'policy "mutate" denied request' in result.message


def test_a_strict_decoding_failure_aborts_the_request_even_under_ignore():
    unknown = json_patch('[JSONPatch{op: "add", path: "/spec", value: {"x": 1}}]')
    policies = [
        map_policy("a", [unknown], failurePolicy="Ignore"),
        map_policy("b", [ADD_LABEL]),
    ]
    result = run(policies, configmap())
    assert (result.allowed, result.status_code, result.reason) == (False, 500, "InternalError")
    assert result.message == 'Internal error occurred: strict decoding error: unknown field "spec"'
    assert [o.policy for o in result.policies] == ["a"]


def test_mutation_compile_errors_are_reported_without_the_runtime_prefix():
    result = run(
        [map_policy(mutations=[json_patch("[JSONPatch{op: 'add', path: '/x', value: }]")])],
        configmap(),
    )
    assert not result.allowed
    assert result.message.startswith(
        'policy "mutate" denied request: compilation failed: ERROR: <input>:1:'
    )


def test_object_type_names_must_follow_the_field_path():
    mutation = apply_config('Object{metadata: Object.metadatax{labels: {"a": "b"}}}')
    result = run([map_policy(mutations=[mutation])], configmap())
    assert result.message == (
        'policy "mutate" denied request: type mismatch: unexpected type name "Object.metadatax", '
        'expected "Object.metadata", which matches field name path from root Object type'
    )


WIDGET_CRD = widget_crd(
    {
        "parts": {
            "type": "array",
            "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["name"],
            "items": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "size": {"type": "integer"}},
            },
        },
        "tags": {"type": "array", "items": {"type": "string"}},
    }
)
WIDGET_RULES = rules("widgets", group="example.com", operations=("CREATE",))


def widget():
    return {
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {"name": "w", "namespace": "default", "labels": {"a": "1"}},
        "spec": {"parts": [{"name": "x", "size": 1}]},
    }


def test_custom_resources_merge_with_their_crd_schema():
    mutation = apply_config(
        'Object{metadata: Object.metadata{labels: {"b": "2"}},'
        ' spec: Object.spec{parts: [Object.spec.parts{name: "y", size: 2}]}}'
    )
    policy = map_policy(mutations=[mutation], matchConstraints=WIDGET_RULES)
    result = run([policy], widget(), resources=[WIDGET_CRD])
    assert result.object["spec"]["parts"] == [{"name": "x", "size": 1}, {"name": "y", "size": 2}]
    assert result.object["metadata"]["labels"] == {"a": "1", "b": "2"}


def test_crd_lists_without_a_list_type_are_atomic_and_unknown_fields_refused():
    atomic = apply_config('Object{spec: Object.spec{tags: ["t"]}}')
    policy = map_policy(mutations=[atomic], matchConstraints=WIDGET_RULES)
    result = run([policy], widget(), resources=[WIDGET_CRD])
    assert result.message.endswith("may not mutate atomic arrays, maps or structs: .spec.tags")
    unknown = apply_config("Object{spec: Object.spec{color: 1}}")
    policy = map_policy(mutations=[unknown], matchConstraints=WIDGET_RULES)
    result = run([policy], widget(), resources=[WIDGET_CRD])
    assert result.message.endswith(".spec.color: field not declared in schema")


def test_a_policy_version_the_cluster_does_not_serve_is_not_evaluated():
    policy = map_policy(mutations=[ADD_LABEL])
    result = run([policy], configmap(), version="1.35")
    assert result.result == "error" and result.allowed
    assert result.object == configmap()
    assert result.errors == [
        "MutatingAdmissionPolicy 'mutate': admissionregistration.k8s.io/v1 is not served by "
        "Kubernetes 1.35 (served: v1alpha1, v1beta1); it is not evaluated",
        "no ValidatingAdmissionPolicy or MutatingAdmissionPolicy to evaluate",
    ]
    beta = dict(policy, apiVersion="admissionregistration.k8s.io/v1beta1")
    assert run([beta], configmap(), version="1.35").object["metadata"]["labels"] == {"team": "a"}


def test_every_failing_mutating_policy_is_listed_in_the_causes():
    broken = json_patch('[JSONPatch{op: "remove", path: "/data/missing"}]')
    result = run([map_policy("a", [broken]), map_policy("b", [broken])], configmap())
    assert result.message.startswith('policy "a" denied request')
    assert [c.split(" denied")[0] for c in result.causes] == ['policy "a"', 'policy "b"']


def test_each_failed_mutation_of_a_policy_is_a_cause_and_the_first_answers():
    first = json_patch('[JSONPatch{op: "remove", path: "/data/one"}]')
    second = json_patch('[JSONPatch{op: "remove", path: "/data/two"}]')
    result = run([map_policy(mutations=[first, second])], configmap())
    assert '"/data/one"' in result.message
    assert len(result.causes) == 2 and '"/data/two"' in result.causes[1]
