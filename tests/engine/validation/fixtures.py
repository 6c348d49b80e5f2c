"""Shared validation test documents: the Kubernetes documentation's VAP, VAPB, MAP and MAPB."""

from __future__ import annotations

import copy

from policyeditor.engine.manifests.loading import load_documents

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
