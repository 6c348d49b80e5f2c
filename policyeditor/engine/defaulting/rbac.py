"""Defaults of the rbac.authorization.k8s.io/v1 bindings: roleRef and subjects' apiGroup.

Follows kubernetes/kubernetes pkg/apis/rbac/v1/defaults.go (SetDefaults_ClusterRoleBinding,
SetDefaults_RoleBinding, SetDefaults_Subject) and its zz_generated.defaults.go.
"""

from __future__ import annotations

from typing import Any

from policyeditor.engine.defaulting.record import Recorder, child, items

GROUP = "rbac.authorization.k8s.io"


def default_binding(obj: dict[str, Any], rec: Recorder) -> None:
    """RoleBinding and ClusterRoleBinding: the roleRef's group; User and Group subjects' group."""
    role_ref, role_ref_path = child(obj, "roleRef", "", rec, value=True)
    if role_ref is not None:
        rec.default(role_ref, "apiGroup", GROUP, role_ref_path)
    for subject, subject_path in items(obj, "subjects", ""):
        if subject.get("kind") in ("User", "Group"):
            rec.default(subject, "apiGroup", GROUP, subject_path)
