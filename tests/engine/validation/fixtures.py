"""Shared validation test documents: the Kubernetes documentation's VAP, VAPB, MAP and MAPB."""

from __future__ import annotations

import copy

from tests.builders import document, rules, vap, vap_binding

SIDECAR = """\
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
"""
V1ALPHA1 = "admissionregistration.k8s.io/v1alpha1"
DOCS = [
    vap(
        "demo-policy.example.com",
        validations=[{"expression": "object.spec.replicas <= 5"}],
    ),
    vap_binding(
        "demo-binding-test.example.com",
        "demo-policy.example.com",
        matchResources={"namespaceSelector": {"matchLabels": {"environment": "test"}}},
    ),
    document(
        "MutatingAdmissionPolicy",
        "sidecar-policy.example.com",
        {
            "paramKind": {"kind": "Sidecar", "apiVersion": "mutations.example.com/v1"},
            "matchConstraints": rules("pods", group="", operations=("CREATE",)),
            "matchConditions": [
                {
                    "name": "does-not-already-have-sidecar",
                    "expression": '!object.spec.initContainers.exists(ic, ic.name == "mesh-proxy")',
                }
            ],
            "failurePolicy": "Fail",
            "reinvocationPolicy": "IfNeeded",
            "mutations": [
                {"patchType": "ApplyConfiguration", "applyConfiguration": {"expression": SIDECAR}}
            ],
        },
        api_version=V1ALPHA1,
    ),
    document(
        "MutatingAdmissionPolicyBinding",
        "sidecar-binding-test.example.com",
        {
            "policyName": "sidecar-policy.example.com",
            "paramRef": {"name": "meshproxy-v1.0.0", "namespace": "default"},
        },
        api_version=V1ALPHA1,
    ),
]
VAP, VAPB, MAP, MAPB = DOCS


def with_value(doc: dict, path: str, value) -> dict:
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
