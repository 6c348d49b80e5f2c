"""Defaults of the core (v1) kinds: Pod, PodTemplate, ReplicationController, Service, Namespace, ...

Follows kubernetes/kubernetes pkg/apis/core/v1/defaults.go (SetDefaults_Pod, SetDefaults_Service,
SetDefaults_Namespace, SetDefaults_NamespaceStatus, SetDefaults_PersistentVolumeClaim,
SetDefaults_PersistentVolume, SetDefaults_Secret, SetDefaults_Endpoints,
SetDefaults_ReplicationController) and pkg/apis/core/v1/zz_generated.defaults.go for which of them
run on which nested type. ServiceAccount, ConfigMap and the other core kinds have no defaulter here.
"""

from __future__ import annotations

from typing import Any

from policyeditor.engine.defaulting.podspec import (
    default_claim_spec,
    default_pod_spec,
    default_pod_template,
)
from policyeditor.engine.defaulting.record import Recorder, child, deep_copy, items, join

# staging/src/k8s.io/api/core/v1/types.go DefaultClientIPServiceAffinitySeconds (3 hours).
CLIENT_IP_AFFINITY_SECONDS = 10800


def _requests_from_limits(spec: dict[str, Any], path: str, rec: Recorder) -> None:
    """SetDefaults_Pod: a (init) container's requests default to its limits, resource by resource."""
    for key in ("containers", "initContainers"):
        for container, container_path in items(spec, key, path):
            resources, resources_path = child(container, "resources", container_path, rec)
            limits = resources.get("limits") if resources is not None else None
            if resources is None or not isinstance(limits, dict):
                continue
            requests = resources.get("requests")
            missing = [
                name for name in limits if not isinstance(requests, dict) or name not in requests
            ]
            if requests is None and missing:
                resources["requests"] = {}
            requests, requests_path = child(resources, "requests", resources_path, rec)
            if requests is None:
                continue
            for name in missing:
                rec.set(requests, name, deep_copy(limits[name]), requests_path)


def default_pod(obj: dict[str, Any], rec: Recorder) -> None:
    """SetDefaults_Pod (only on a Pod, never a template), then the PodSpec's defaults."""
    spec, spec_path = child(obj, "spec", "", rec, value=True)
    if spec is None:
        return
    _requests_from_limits(spec, spec_path, rec)
    # PodLevelResources (beta, on from 1.34) derives pod-level requests/limits by adding the
    # containers' quantities up; that arithmetic is not modelled.
    rec.default_pointer(spec, "enableServiceLinks", True, spec_path)
    if spec.get("hostNetwork") is True:
        for key in ("containers", "initContainers"):
            for container, container_path in items(spec, key, spec_path):
                for port, port_path in items(container, "ports", container_path):
                    if port.get("hostPort") in (None, 0):
                        rec.set(port, "hostPort", port.get("containerPort"), port_path)
    default_pod_spec(spec, spec_path, rec)


def default_pod_template_kind(obj: dict[str, Any], rec: Recorder) -> None:
    """PodTemplate: its template's PodSpec."""
    template, template_path = child(obj, "template", "", rec, value=True)
    if template is not None:
        default_pod_template(template, template_path, rec)


def default_replication_controller(obj: dict[str, Any], rec: Recorder) -> None:
    """SetDefaults_ReplicationController: selector and labels from the template, replicas 1."""
    spec, spec_path = child(obj, "spec", "", rec, value=True)
    if spec is None:
        return
    template, template_path = child(spec, "template", spec_path, rec)  # a pointer: may be unset
    if template is not None:
        metadata = template.get("metadata")
        labels = metadata.get("labels") if isinstance(metadata, dict) else None
        if isinstance(labels, dict):
            if not spec.get("selector"):
                rec.set(spec, "selector", dict(labels), spec_path)
            meta, meta_path = child(obj, "metadata", "", rec, value=True)
            if meta is not None and not meta.get("labels"):
                rec.set(meta, "labels", dict(labels), meta_path)
        default_pod_template(template, template_path, rec)
    rec.default_pointer(spec, "replicas", 1, spec_path)  # +default=1


def default_service(obj: dict[str, Any], rec: Recorder) -> None:
    """SetDefaults_Service."""
    spec, path = child(obj, "spec", "", rec, value=True)
    if spec is None:
        return
    rec.default(spec, "sessionAffinity", "None", path)
    if spec.get("sessionAffinity") == "None" and spec.get("sessionAffinityConfig") is not None:
        del spec["sessionAffinityConfig"]
        rec.paths.append(join(path, "sessionAffinityConfig"))  # cleared
    if spec.get("sessionAffinity") == "ClientIP":
        config = spec.get("sessionAffinityConfig")
        client_ip = config.get("clientIP") if isinstance(config, dict) else None
        timeout = client_ip.get("timeoutSeconds") if isinstance(client_ip, dict) else None
        if timeout is None:
            value = {"clientIP": {"timeoutSeconds": CLIENT_IP_AFFINITY_SECONDS}}
            rec.set(spec, "sessionAffinityConfig", value, path)
    rec.default(spec, "type", "ClusterIP", path)
    for port, port_path in items(spec, "ports", path):
        rec.default(port, "protocol", "TCP", port_path)
        if port.get("targetPort") in (None, 0, ""):
            rec.set(port, "targetPort", port.get("port", 0), port_path)
    kind = spec.get("type")
    # pkg/api/v1/service ExternallyAccessible.
    external = kind in ("LoadBalancer", "NodePort") or (
        kind == "ClusterIP" and bool(spec.get("externalIPs"))
    )
    if external:
        rec.default(spec, "externalTrafficPolicy", "Cluster", path)
    if kind in ("NodePort", "LoadBalancer", "ClusterIP"):
        rec.default_pointer(spec, "internalTrafficPolicy", "Cluster", path)
    if kind == "LoadBalancer":
        rec.default_pointer(spec, "allocateLoadBalancerNodePorts", True, path)
        # LoadBalancerIPMode: beta and on from 1.30, GA in 1.32.
        status, status_path = child(obj, "status", "", rec)
        balancer, balancer_path = (
            child(status, "loadBalancer", status_path, rec) if status else (None, "")
        )
        if balancer is not None:
            for ingress, ingress_path in items(balancer, "ingress", balancer_path):
                if ingress.get("ip") and ingress.get("ipMode") is None:
                    rec.set(ingress, "ipMode", "VIP", ingress_path)


def default_namespace(obj: dict[str, Any], rec: Recorder) -> None:
    """SetDefaults_Namespace (the name label) and SetDefaults_NamespaceStatus (phase Active)."""
    meta, meta_path = child(obj, "metadata", "", rec, value=True)
    name = meta.get("name") if meta is not None else None
    if meta is not None and isinstance(name, str) and name:
        if meta.get("labels") is None:
            meta["labels"] = {}
        labels, labels_path = child(meta, "labels", meta_path, rec)
        if labels is not None and labels.get("kubernetes.io/metadata.name") != name:
            rec.set(labels, "kubernetes.io/metadata.name", name, labels_path)
    status, status_path = child(obj, "status", "", rec, value=True)
    if status is not None:
        rec.default(status, "phase", "Active", status_path)


def default_claim(claim: dict[str, Any], path: str, rec: Recorder) -> None:
    """SetDefaults_PersistentVolumeClaim (status phase Pending) and its spec's defaults."""
    spec, spec_path = child(claim, "spec", path, rec, value=True)
    if spec is not None:
        default_claim_spec(spec, spec_path, rec)
    status, status_path = child(claim, "status", path, rec, value=True)
    if status is not None:
        rec.default(status, "phase", "Pending", status_path)


def default_persistent_volume_claim(obj: dict[str, Any], rec: Recorder) -> None:
    """A PersistentVolumeClaim object."""
    default_claim(obj, "", rec)


def default_persistent_volume(obj: dict[str, Any], rec: Recorder) -> None:
    """SetDefaults_PersistentVolume: phase Pending, reclaim policy Retain, volumeMode Filesystem."""
    spec, spec_path = child(obj, "spec", "", rec, value=True)
    if spec is not None:
        rec.default(spec, "persistentVolumeReclaimPolicy", "Retain", spec_path)
        rec.default_pointer(spec, "volumeMode", "Filesystem", spec_path)
    status, status_path = child(obj, "status", "", rec, value=True)
    if status is not None:
        rec.default(status, "phase", "Pending", status_path)


def default_secret(obj: dict[str, Any], rec: Recorder) -> None:
    """SetDefaults_Secret: type Opaque."""
    rec.default(obj, "type", "Opaque", "")


def default_endpoints(obj: dict[str, Any], rec: Recorder) -> None:
    """SetDefaults_Endpoints: every subset port's protocol is TCP."""
    for subset, subset_path in items(obj, "subsets", ""):
        for port, port_path in items(subset, "ports", subset_path):
            rec.default(port, "protocol", "TCP", port_path)


def default_nothing(obj: dict[str, Any], rec: Recorder) -> None:
    """A kind the API server registers no defaulter for (ServiceAccount, Ingress, ...)."""
