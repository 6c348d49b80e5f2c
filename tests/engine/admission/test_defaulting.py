"""Admission sees objects as the API server decodes them: defaulted, and defaulted again after each mutation."""

from __future__ import annotations

from policyeditor.engine.admission.evaluation import AdmissionRequest, evaluate

GROUP = "admissionregistration.k8s.io/v1"
RULES = {
    "resourceRules": [
        {
            "apiGroups": ["apps"],
            "apiVersions": ["v1"],
            "operations": ["CREATE", "UPDATE"],
            "resources": ["deployments"],
        }
    ]
}


def _deployment(**spec) -> dict:
    template = {
        "metadata": {"labels": {"app": "web"}},
        "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]},
    }
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"selector": {"matchLabels": {"app": "web"}}, "template": template, **spec},
    }


def _vap(expression: str) -> dict:
    return {
        "apiVersion": GROUP,
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": "check"},
        "spec": {"matchConstraints": RULES, "validations": [{"expression": expression}]},
    }


def _map(*mutations: dict) -> dict:
    return {
        "apiVersion": GROUP,
        "kind": "MutatingAdmissionPolicy",
        "metadata": {"name": "mutate"},
        "spec": {
            "matchConstraints": RULES,
            "reinvocationPolicy": "Never",
            "mutations": list(mutations),
        },
    }


def _json_patch(expression: str) -> dict:
    return {"patchType": "JSONPatch", "jsonPatch": {"expression": expression}}


MAP_VERSION = "1.36"  # the first to serve MutatingAdmissionPolicy v1
STRATEGY = "object.spec.strategy.type == 'RollingUpdate'"
PULL = "object.spec.template.spec.containers.all(c, c.imagePullPolicy == 'IfNotPresent')"


def test_a_validation_reads_the_defaulted_fields():
    request = AdmissionRequest.build(object=_deployment())
    for expression in (STRATEGY, PULL, "object.spec.replicas == 1"):
        result = evaluate([_vap(expression)], request, version="1.34")
        assert result.allowed, (expression, result.message)


def test_without_defaulting_the_same_validation_finds_no_such_key():
    request = AdmissionRequest.build(object=_deployment())
    result = evaluate([_vap(STRATEGY)], request, version="1.34", defaulting=False)
    assert not result.allowed
    assert "no such key" in result.message
    assert result.defaulted == {}
    assert result.to_dict()["defaulting"] is False


def test_the_result_lists_the_defaulted_paths_of_object_and_old_object():
    request = AdmissionRequest.build(object=_deployment(), old_object=_deployment(replicas=3))
    result = evaluate([_vap("true")], request, version="1.34")
    assert "spec.strategy.type" in result.defaulted["object"]
    assert "spec.replicas" in result.defaulted["object"]
    assert "spec.replicas" not in result.defaulted["oldObject"]
    data = result.to_dict()
    assert data["defaulting"] is True
    assert data["defaulted"]["object"] == result.defaulted["object"]


def test_an_update_whose_old_object_is_the_object_is_defaulted_once_with_the_same_answer(
    monkeypatch,
):
    from policyeditor.engine.admission import evaluation

    calls = []
    real = evaluation.default_object
    monkeypatch.setattr(evaluation, "default_object", lambda o, v: calls.append(o) or real(o, v))
    obj = _deployment()
    mutate = _map(_json_patch("[JSONPatch{op: 'add', path: '/spec/paused', value: true}]"))
    check = _vap("object.spec.paused == true && !has(oldObject.spec.paused) && " + STRATEGY)
    shared = AdmissionRequest.build(object=obj, old_object=obj)
    apart = AdmissionRequest.build(object=obj, old_object=_deployment())
    answers, counts = [], []
    for request in (shared, apart):
        calls.clear()
        answers.append(evaluate([mutate, check], request, version=MAP_VERSION))
        counts.append(len(calls))
    assert [a.allowed for a in answers] == [True, True], answers[0].message
    assert answers[0].object == answers[1].object
    assert answers[0].defaulted == answers[1].defaulted
    assert counts[0] == counts[1] - 1  # the shared object: defaulted once for both roles
    assert "paused" not in obj["spec"] and "strategy" not in obj["spec"]


def test_the_caller_s_request_object_is_not_changed():
    obj = _deployment()
    request = AdmissionRequest.build(object=obj)
    evaluate([_vap(STRATEGY)], request, version="1.34")
    assert "strategy" not in obj["spec"]
    assert "strategy" not in request.object["spec"]


def test_a_map_s_patch_and_diff_leave_out_what_defaulting_filled_in():
    add_label = _json_patch(
        "[JSONPatch{op: 'add', path: '/metadata/labels', value: {'team': 'a'}}]"
    )
    request = AdmissionRequest.build(object=_deployment())
    result = evaluate([_map(add_label)], request, version=MAP_VERSION)
    assert result.allowed, result.message
    assert result.patch == [{"op": "add", "path": "/metadata/labels", "value": {"team": "a"}}]
    assert result.object["spec"]["strategy"]["type"] == "RollingUpdate"  # the stored object


def test_a_container_a_mutation_adds_is_defaulted_before_the_next_mutation_reads_it():
    add = _json_patch(
        "[JSONPatch{op: 'add', path: '/spec/template/spec/containers/-', "
        "value: Object.spec.template.spec.containers{name: 'proxy', image: 'proxy'}}]"
    )
    # The second mutation only succeeds when it sees the pull policy defaulting gave the proxy.
    check = _json_patch(
        "object.spec.template.spec.containers.exists(c, c.name == 'proxy' && "
        "c.imagePullPolicy == 'Always') ? [JSONPatch{op: 'add', path: '/metadata/annotations', "
        "value: {'seen': 'Always'}}] : []"
    )
    request = AdmissionRequest.build(object=_deployment())
    result = evaluate([_map(add, check)], request, version=MAP_VERSION)
    assert result.allowed, result.message
    assert result.object["metadata"]["annotations"] == {"seen": "Always"}
    steps = result.policies[0].mutations
    assert "spec.template.spec.containers[1].imagePullPolicy" in steps[0].defaulted
    assert steps[0].to_dict()["defaulted"] == steps[0].defaulted
    assert "defaulted" not in steps[1].to_dict()  # nothing left to default


def test_a_removed_defaulted_field_comes_back_after_the_mutation():
    remove = _json_patch("[JSONPatch{op: 'remove', path: '/spec/replicas'}]")
    request = AdmissionRequest.build(object=_deployment(replicas=3))
    on = evaluate([_map(remove)], request, version=MAP_VERSION)
    assert on.object["spec"]["replicas"] == 1
    off = evaluate([_map(remove)], request, version=MAP_VERSION, defaulting=False)
    assert "replicas" not in off.object["spec"]


def test_a_namespace_given_without_labels_has_its_name_label_for_selectors():
    policy = _vap("false")
    policy["spec"]["matchConstraints"] = {
        **RULES,
        "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "default"}},
    }
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default"}}
    request = AdmissionRequest.build(object=_deployment())
    on = evaluate([policy], request, version="1.34", namespace_object=namespace)
    assert not on.allowed  # matched through the label the cluster adds
    off = evaluate([policy], request, version="1.34", namespace_object=namespace, defaulting=False)
    assert off.allowed
