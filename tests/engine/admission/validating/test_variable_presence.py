"""`has(variables.x)` as kube-apiserver evaluates it: a presence test on the lazy variables map.

kubernetes/kubernetes staging/src/k8s.io/apiserver/pkg/cel/lazy/lazy.go (MapValue.Find) resolves
the variable when it is tested, so the test is true for a declared variable that evaluates and
is the variable's error when it does not; `has(variables.x.f)` tests the field of its value.
"""

from __future__ import annotations

from policyeditor.engine.admission.evaluation import AdmissionRequest, evaluate
from policyeditor.engine.validation import validate_document
from tests.builders import rules, vap

# Containers must run as non-root, set on the container or inherited from the pod-level
# securityContext: the fallback idiom `has(variables.psc) && has(variables.psc.runAsNonRoot)`.
NON_ROOT = vap(
    "non-root",
    failurePolicy="Fail",
    matchConstraints=rules("pods", group=""),
    variables=[
        {"name": "psc", "expression": "object.spec.securityContext"},
        {
            "name": "podNonRoot",
            "expression": (
                "has(variables.psc) && has(variables.psc.runAsNonRoot) && "
                "variables.psc.runAsNonRoot"
            ),
        },
    ],
    validations=[
        {"expression": "has(variables.psc)"},
        {
            "expression": (
                "object.spec.containers.all(c, has(c.securityContext) && "
                "has(c.securityContext.runAsNonRoot) ? c.securityContext.runAsNonRoot "
                ": variables.podNonRoot)"
            ),
            "message": "containers must run as non-root",
        },
    ],
)


def pod(pod_context=None, container_context=None):
    container = {"name": "app", "image": "nginx"}
    if container_context is not None:
        container["securityContext"] = container_context
    spec = {"containers": [container]}
    if pod_context is not None:
        spec["securityContext"] = pod_context
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "web", "namespace": "prod"},
        "spec": spec,
    }


def run(obj, *, defaulting=True):
    return evaluate([NON_ROOT], AdmissionRequest.build(object=obj), defaulting=defaulting)


def test_the_policy_using_presence_tests_of_variables_is_valid():
    assert validate_document(NON_ROOT) == []


def test_a_container_inherits_run_as_non_root_from_the_pod():
    result = run(pod({"runAsNonRoot": True}))
    assert (result.result, result.allowed) == ("allow", True), result.message
    statuses = [v.status for v in result.policies[0].validations]
    assert statuses == ["pass", "pass"]


def test_a_pod_context_without_the_field_falls_through_to_a_denial():
    result = run(pod({"runAsUser": 1000}))
    assert not result.allowed
    assert result.message.endswith("denied request: containers must run as non-root")


def test_the_container_setting_wins_over_the_pod_fallback():
    assert run(pod({"runAsNonRoot": True}, {"runAsNonRoot": False})).allowed is False
    assert run(pod({}, {"runAsNonRoot": True})).allowed is True


def test_testing_a_variable_that_fails_to_evaluate_is_its_error():
    # A Pod is stored with `securityContext: {}` (SetDefaults_PodSpec), so only an undefaulted
    # object lacks it: then variables.psc is `no such key`.
    result = run(pod(), defaulting=False)
    assert not result.allowed
    assert 'composited variable "psc" fails to evaluate: no such key: securityContext' in (
        result.message
    )
