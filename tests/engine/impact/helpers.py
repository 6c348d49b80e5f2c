"""Objects, dumps and a policy that runs away on some objects, for the impact tests."""

from __future__ import annotations

import copy
import json
from typing import Any

from tests.builders import replica_limit

# Slow and huge while its runtime cost stays tiny: only the isolation limits stop it.
# The runaway fills a worker's memory cap within 1.2 to 3 s, the machine's speed deciding, and is
# then stopped with the memory limit's message: a deadline well inside that is what must stop it in
# a test that expects the time limit's.
RUNAWAY_DEADLINE = 0.3
RUNAWAY = (
    "['a']" + ".map(x, '%s%s%s%s%s%s%s%s'.format([x, x, x, x, x, x, x, x]))" * 10 + ".size() > 0"
)


def deployment(name: str, replicas: int, namespace: str = "default") -> dict[str, Any]:
    """A Deployment as kubectl dumps it (with managedFields)."""
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "managedFields": [{"manager": "kubectl", "operation": "Apply"}],
        },
        "spec": {"replicas": replicas},
    }


def kubectl_json(items: list[dict[str, Any]]) -> bytes:
    """What `kubectl get ... -o json` prints."""
    doc = {"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"resourceVersion": ""}}
    return json.dumps(doc, indent=4).encode()


def looping_policy(limit: int = 5) -> dict[str, Any]:
    """replica_limit, except that objects named slow-* make its expression run away."""
    policy = copy.deepcopy(replica_limit(limit))
    validation = policy["spec"]["validations"][0]
    validation["expression"] = (
        f"object.metadata.name.startsWith('slow') ? ({RUNAWAY}) : ({validation['expression']})"
    )
    return policy


def labels_policy(failure_policy: str) -> dict[str, Any]:
    """replica_limit with `failurePolicy`, except that its expression fails (no such key) on
    objects without labels, allows tier=web and denies any other tier."""
    policy = copy.deepcopy(replica_limit(5, failurePolicy=failure_policy))
    policy["spec"]["validations"][0]["expression"] = "object.metadata.labels['tier'] == 'web'"
    return policy


def labelled(name: str, tier: str) -> dict[str, Any]:
    """A Deployment with the label tier=`tier`."""
    obj = deployment(name, 1)
    obj["metadata"]["labels"] = {"tier": tier}
    return obj


def params_policy(expression: str = "object.spec.replicas <= int(params.data.max)") -> dict:
    """A VAP on deployments whose limit is a ConfigMap's data.max (paramKind v1 ConfigMap)."""
    policy = replica_limit(0, name="replicas-from-params")
    policy["spec"]["paramKind"] = {"apiVersion": "v1", "kind": "ConfigMap"}
    policy["spec"]["validations"] = [
        {"expression": expression, "messageExpression": "'at most ' + params.data.max"}
    ]
    return policy


def params_binding(**param_ref: Any) -> dict:
    """A binding of params_policy with this paramRef (parameterNotFoundAction Allow unless given)."""
    return {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": "replicas-from-params-binding"},
        "spec": {
            "policyName": "replicas-from-params",
            "validationActions": ["Deny"],
            "paramRef": {"parameterNotFoundAction": "Allow", **param_ref},
        },
    }


def config_map(namespace: str, name: str, limit: str, **labels: str) -> dict[str, Any]:
    """A ConfigMap holding `max: limit`, as kubectl dumps it."""
    metadata: dict[str, Any] = {"name": name, "namespace": namespace}
    if labels:
        metadata["labels"] = labels
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata, "data": {"max": limit}}


def params_draft() -> list[dict[str, Any]]:
    """The repro's draft: params_policy, a binding selecting `policy: replicas` ConfigMaps, and an
    unlabelled ConfigMap prod/limits-default of 10 (which the selector does not select)."""
    return [
        params_policy(),
        params_binding(selector={"matchLabels": {"policy": "replicas"}}),
        config_map("prod", "limits-default", "10"),
    ]
