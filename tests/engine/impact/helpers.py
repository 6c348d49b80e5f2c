"""Objects, dumps and a policy that runs away on some objects, for the impact tests."""

from __future__ import annotations

import copy
import json
from typing import Any

from tests.builders import replica_limit

# Slow and huge while its runtime cost stays tiny: only the isolation deadline stops it.
# The runaway fills a worker's memory cap within 1.2 to 3 s, the machine's speed deciding, and then
# ends as a CEL error: a deadline well inside that is what must stop it in a test.
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
