"""YAML sources tests share as written (comments, quotes, blank lines) and the diff of two texts."""

from __future__ import annotations

import difflib

# The replica-limit policy and its binding as a team keeps them in Git. The lossless tests (drafts
# over HTTP, the editor's import/export, the YAML editor in the browser) need this exact text: its
# header comment, the end-of-line comments, the blank line and the mixed quoting are what they
# check survives an edit, so change it only together with the lines those tests expect.
REPLICA_LIMIT_YAML = """\
# Replica limit, as kept in Git.
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: replica-limit.example.com   # cluster-scoped
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["deployments"]

  validations:
  - expression: "object.spec.replicas <= 5"   # the limit
    message: at most 5 replicas
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: replica-limit-binding}
spec:
  policyName: replica-limit.example.com
  validationActions: [Deny]
"""

# The policy alone (the first document, its header comment included).
REPLICA_LIMIT_POLICY_YAML = REPLICA_LIMIT_YAML.split("---\n")[0]


def changed_lines(before: str, after: str) -> list[str]:
    """The -/+ lines of a unified diff of two texts."""
    return [
        line
        for line in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0)
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]
