"""The registered defaulters, keyed by (group, version, kind), and the entry point that runs them.

kube-apiserver decodes every request body into its versioned type and runs the scheme's defaulter
for that (group, version, kind) (k8s.io/apimachinery pkg/runtime/scheme.go, Scheme.Default, called by
the codec's Decode); the object admission sees is that defaulted object. Kinds without a registered
defaulter (custom resources, kinds not listed here) are left as they are.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from policyeditor.engine.defaulting import apps, autoscaling, batch, core, networking, rbac
from policyeditor.engine.defaulting.admissionregistration import apply_defaults
from policyeditor.engine.defaulting.record import Recorder, join
from policyeditor.engine.objects import group_version_kind
from policyeditor.engine.versions import DEFAULT_VERSION

Defaulter = Callable[[dict[str, Any], Recorder], None]


def _admissionregistration(obj: dict[str, Any], rec: Recorder) -> None:
    """The policy kinds' defaulter (admissionregistration.py), its paths found by comparison."""
    defaulted = apply_defaults(obj)
    rec.paths.extend(added_paths(obj, defaulted, ""))
    obj.clear()
    obj.update(defaulted)


def added_paths(before: Any, after: Any, path: str) -> list[str]:
    """The paths at which `after` holds a value `before` does not (a defaulter only adds)."""
    if isinstance(before, dict) and isinstance(after, dict):
        found: list[str] = []
        for key, value in after.items():
            if key not in before or before[key] is None:
                found.append(join(path, str(key)))
            elif before[key] != value:  # only the changed branches: a defaulter writes shallowly
                found.extend(added_paths(before[key], value, join(path, str(key))))
        return found
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        return [
            p
            for i, (b, a) in enumerate(zip(before, after, strict=True))
            for p in added_paths(b, a, join(path, i))
        ]
    return [] if before == after else [path]


_ADMISSION_KINDS = (
    "ValidatingAdmissionPolicy",
    "ValidatingAdmissionPolicyBinding",
    "MutatingAdmissionPolicy",
    "MutatingAdmissionPolicyBinding",
)

REGISTRY: dict[tuple[str, str, str], Defaulter] = {
    ("", "v1", "Pod"): core.default_pod,
    ("", "v1", "PodTemplate"): core.default_pod_template_kind,
    ("", "v1", "ReplicationController"): core.default_replication_controller,
    ("", "v1", "Service"): core.default_service,
    ("", "v1", "Namespace"): core.default_namespace,
    ("", "v1", "PersistentVolumeClaim"): core.default_persistent_volume_claim,
    ("", "v1", "PersistentVolume"): core.default_persistent_volume,
    ("", "v1", "Secret"): core.default_secret,
    ("", "v1", "Endpoints"): core.default_endpoints,
    ("", "v1", "ServiceAccount"): core.default_nothing,
    ("", "v1", "ConfigMap"): core.default_nothing,
    ("apps", "v1", "Deployment"): apps.default_deployment,
    ("apps", "v1", "ReplicaSet"): apps.default_replica_set,
    ("apps", "v1", "StatefulSet"): apps.default_stateful_set,
    ("apps", "v1", "DaemonSet"): apps.default_daemon_set,
    ("batch", "v1", "Job"): batch.default_job,
    ("batch", "v1", "CronJob"): batch.default_cron_job,
    ("networking.k8s.io", "v1", "NetworkPolicy"): networking.default_network_policy,
    ("networking.k8s.io", "v1", "IngressClass"): networking.default_ingress_class,
    ("networking.k8s.io", "v1", "Ingress"): core.default_nothing,
    ("autoscaling", "v1", "HorizontalPodAutoscaler"): autoscaling.default_hpa_v1,
    ("autoscaling", "v2", "HorizontalPodAutoscaler"): autoscaling.default_hpa_v2,
    ("rbac.authorization.k8s.io", "v1", "RoleBinding"): rbac.default_binding,
    ("rbac.authorization.k8s.io", "v1", "ClusterRoleBinding"): rbac.default_binding,
    **{
        ("admissionregistration.k8s.io", api, kind): _admissionregistration
        for api in ("v1", "v1beta1", "v1alpha1")
        for kind in _ADMISSION_KINDS
    },
}


def defaulter_for(obj: Any) -> Defaulter | None:
    """The registered defaulter of this object's kind, None when the kind has none."""
    gvk = group_version_kind(obj)
    return REGISTRY.get(gvk) if gvk is not None else None


@dataclass
class Defaulted:
    """A defaulted copy of an object and the paths the defaulters wrote (empty when none)."""

    object: Any
    paths: list[str] = field(default_factory=list)


def default_object(obj: Any, version: str = DEFAULT_VERSION) -> Defaulted:
    """The object as the API server of Kubernetes `version` decodes it: defaulted, on a copy.

    The input is never changed; an object of no registered kind (or no object) comes back as is.
    """
    defaulter = defaulter_for(obj)
    if defaulter is None:
        return Defaulted(obj)
    copied = dict(obj)  # the defaulters copy what they write below it (record.child, items)
    rec = Recorder(version=version)
    defaulter(copied, rec)
    if not rec.paths:
        return Defaulted(obj)
    return Defaulted(copied, rec.paths)
