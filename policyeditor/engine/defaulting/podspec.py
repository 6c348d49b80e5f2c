"""Defaults of a PodSpec and everything nested in it, wherever a PodSpec appears.

Follows kubernetes/kubernetes pkg/apis/core/v1/defaults.go (SetDefaults_PodSpec,
SetDefaults_Container, SetDefaults_EphemeralContainer, SetDefaults_Probe, SetDefaults_HTTPGetAction,
SetDefaults_Volume and the volume sources' SetDefaults_*, SetDefaults_ObjectFieldSelector,
SetDefaults_PersistentVolumeClaimSpec) and the `+default=` markers of staging/src/k8s.io/api/core/v1
types.go, applied to the nested types as pkg/apis/core/v1/zz_generated.defaults.go lists them
(SetObjectDefaults_Pod, SetObjectDefaults_PodTemplate: every container, init container, ephemeral
container, probe, lifecycle handler, env fieldRef and volume of the spec).
"""

from __future__ import annotations

import functools
import re
from typing import Any

from policyeditor.engine.defaulting.record import Recorder, child, items
from policyeditor.engine.versions import minor

# staging/src/k8s.io/api/core/v1/types.go: DefaultTerminationGracePeriodSeconds, DefaultSchedulerName,
# TerminationMessagePathDefault, SecretVolumeSourceDefaultMode (0644) and the other volume modes.
GRACE_PERIOD_SECONDS = 30
SCHEDULER_NAME = "default-scheduler"
TERMINATION_MESSAGE_PATH = "/dev/termination-log"
VOLUME_MODE_0644 = 0o644
TOKEN_EXPIRATION_SECONDS = 3600

# The sources a Volume can name: SetDefaults_Volume gives emptyDir when none is set
# (ptr.AllPtrFieldsNil(&obj.VolumeSource)).
VOLUME_SOURCES = frozenset(
    {
        "hostPath", "emptyDir", "gcePersistentDisk", "awsElasticBlockStore", "gitRepo", "secret",
        "nfs", "iscsi", "glusterfs", "persistentVolumeClaim", "rbd", "flexVolume", "cinder",
        "cephfs", "flocker", "downwardAPI", "fc", "azureFile", "configMap", "vsphereVolume",
        "quobyte", "azureDisk", "photonPersistentDisk", "projected", "portworxVolume", "scaleIO",
        "storageos", "csi", "ephemeral", "image",
    }
)  # fmt: skip

# github.com/distribution/reference regexp.go: the grammar ParseNormalizedNamed accepts.
_COMPONENT = r"[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*"
_DOMAIN = r"(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*|\[[a-fA-F0-9:]+\])(?::[0-9]+)?"
_REFERENCE = re.compile(
    rf"(?:{_DOMAIN}/)?{_COMPONENT}(?:/{_COMPONENT})*"
    r"(?::(?P<tag>[\w][\w.-]{0,127}))?"
    r"(?:@(?P<digest>[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}))?"
)


def image_tag(image: object) -> str:
    """The tag kubernetes/kubernetes pkg/util/parsers ParseImageName finds ("" on a parse error).

    No tag and no digest means "latest"; a digest alone means no tag.
    """
    if not isinstance(image, str):
        return ""
    # Real references are short; a long one (hostile input) is parsed without filling the cache.
    return _tag_of(image) if len(image) <= 512 else _tag_of.__wrapped__(image)


@functools.lru_cache(maxsize=1024)
def _tag_of(image: str) -> str:
    """image_tag of a text; cached, since a workload's few images come back on every evaluation."""
    match = _REFERENCE.fullmatch(image)
    if match is None:
        return ""  # the defaulter ignores the parse error: the tag is empty
    if match["tag"] is None and match["digest"] is None:
        return "latest"
    return match["tag"] or ""


def pull_policy(image: object) -> str:
    """Always for a :latest (or untagged) image, IfNotPresent otherwise."""
    return "Always" if image_tag(image) == "latest" else "IfNotPresent"


def default_http_get(handler: dict[str, Any], path: str, rec: Recorder) -> None:
    """SetDefaults_HTTPGetAction on handler.httpGet; the grpc service's `+default=""`."""
    http_get, http_path = child(handler, "httpGet", path, rec)
    if http_get is not None:
        rec.default(http_get, "path", "/", http_path)
        rec.default(http_get, "scheme", "HTTP", http_path)
    grpc, grpc_path = child(handler, "grpc", path, rec)
    if grpc is not None:
        rec.default_pointer(grpc, "service", "", grpc_path)


def default_probe(probe: dict[str, Any], path: str, rec: Recorder) -> None:
    """SetDefaults_Probe and its handler's defaults."""
    rec.default_number(probe, "timeoutSeconds", 1, path)
    rec.default_number(probe, "periodSeconds", 10, path)
    rec.default_number(probe, "successThreshold", 1, path)
    rec.default_number(probe, "failureThreshold", 3, path)
    default_http_get(probe, path, rec)


def default_field_ref(holder: dict[str, Any], path: str, rec: Recorder) -> None:
    """SetDefaults_ObjectFieldSelector: a fieldRef's apiVersion is v1."""
    ref, ref_path = child(holder, "fieldRef", path, rec)
    if ref is not None:
        rec.default(ref, "apiVersion", "v1", ref_path)


def default_container(container: dict[str, Any], path: str, rec: Recorder) -> None:
    """SetDefaults_Container (and _EphemeralContainer) plus its ports, env, probes, lifecycle."""
    if container.get("imagePullPolicy") in (None, ""):
        rec.set(container, "imagePullPolicy", pull_policy(container.get("image")), path)
    rec.default(container, "terminationMessagePath", TERMINATION_MESSAGE_PATH, path)
    rec.default(container, "terminationMessagePolicy", "File", path)
    for port, port_path in items(container, "ports", path):
        rec.default(port, "protocol", "TCP", port_path)  # ContainerPort +default="TCP"
    for env, env_path in items(container, "env", path):
        value_from, value_path = child(env, "valueFrom", env_path, rec)
        if value_from is not None:
            default_field_ref(value_from, value_path, rec)
    for probe_key in ("livenessProbe", "readinessProbe", "startupProbe"):
        probe, probe_path = child(container, probe_key, path, rec)
        if probe is not None:
            default_probe(probe, probe_path, rec)
    lifecycle, lifecycle_path = child(container, "lifecycle", path, rec)
    if lifecycle is not None:
        for hook_key in ("postStart", "preStop"):
            hook, hook_path = child(lifecycle, hook_key, lifecycle_path, rec)
            if hook is not None:
                default_http_get(hook, hook_path, rec)


def default_claim_spec(spec: dict[str, Any], path: str, rec: Recorder) -> None:
    """SetDefaults_PersistentVolumeClaimSpec: volumeMode Filesystem."""
    rec.default_pointer(spec, "volumeMode", "Filesystem", path)


def _default_downward_items(parent: dict[str, Any], path: str, rec: Recorder) -> None:
    """The fieldRef defaults of every item of parent's downwardAPI source."""
    downward, downward_path = child(parent, "downwardAPI", path, rec)
    if downward is not None:
        for item, item_path in items(downward, "items", downward_path):
            default_field_ref(item, item_path, rec)


def _default_projection(projected: dict[str, Any], path: str, rec: Recorder) -> None:
    rec.default_pointer(projected, "defaultMode", VOLUME_MODE_0644, path)
    for source, source_path in items(projected, "sources", path):
        token, token_path = child(source, "serviceAccountToken", source_path, rec)
        if token is not None:
            rec.default_pointer(token, "expirationSeconds", TOKEN_EXPIRATION_SECONDS, token_path)
        _default_downward_items(source, source_path, rec)


def default_volume(volume: dict[str, Any], path: str, rec: Recorder) -> None:
    """SetDefaults_Volume and the defaults of the source it names."""
    if not any(volume.get(source) is not None for source in VOLUME_SOURCES):
        rec.set(volume, "emptyDir", {}, path)
        return
    for mode_key in ("secret", "configMap", "downwardAPI"):
        source, source_path = child(volume, mode_key, path, rec)
        if source is not None:
            rec.default_pointer(source, "defaultMode", VOLUME_MODE_0644, source_path)
    _default_downward_items(volume, path, rec)
    projected, projected_path = child(volume, "projected", path, rec)
    if projected is not None:
        _default_projection(projected, projected_path, rec)
    host_path, host_path_path = child(volume, "hostPath", path, rec)
    if host_path is not None:
        rec.default_pointer(host_path, "type", "", host_path_path)  # HostPathUnset
    _default_declared_sources(volume, path, rec)
    ephemeral, ephemeral_path = child(volume, "ephemeral", path, rec)
    if ephemeral is not None:
        template, template_path = child(ephemeral, "volumeClaimTemplate", ephemeral_path, rec)
        if template is not None:
            claim, claim_path = child(template, "spec", template_path, rec, value=True)
            if claim is not None:
                default_claim_spec(claim, claim_path, rec)
    image, image_path = child(volume, "image", path, rec)
    # ImageVolume: alpha 1.31, beta 1.33 (off), on by default from 1.35.
    if image is not None and minor(rec.version) >= 35 and image.get("pullPolicy") in (None, ""):
        tag = image_tag(image.get("reference"))
        rec.set(image, "pullPolicy", "Always" if tag == "latest" else "IfNotPresent", image_path)


def _default_declared_sources(volume: dict[str, Any], path: str, rec: Recorder) -> None:
    """The `+default=` markers of the legacy volume sources (types.go)."""
    iscsi, iscsi_path = child(volume, "iscsi", path, rec)
    if iscsi is not None:
        rec.default(iscsi, "iscsiInterface", "default", iscsi_path)
    rbd, rbd_path = child(volume, "rbd", path, rec)
    if rbd is not None:
        rec.default(rbd, "pool", "rbd", rbd_path)
        rec.default(rbd, "user", "admin", rbd_path)
        rec.default(rbd, "keyring", "/etc/ceph/keyring", rbd_path)
    azure, azure_path = child(volume, "azureDisk", path, rec)
    if azure is not None:
        rec.default_pointer(azure, "cachingMode", "ReadWrite", azure_path)
        rec.default_pointer(azure, "fsType", "ext4", azure_path)
        rec.default_pointer(azure, "readOnly", False, azure_path)
        rec.default_pointer(azure, "kind", "Shared", azure_path)
    scale_io, scale_io_path = child(volume, "scaleIO", path, rec)
    if scale_io is not None:
        rec.default(scale_io, "storageMode", "ThinProvisioned", scale_io_path)
        rec.default(scale_io, "fsType", "xfs", scale_io_path)


def default_pod_spec(spec: dict[str, Any], path: str, rec: Recorder) -> None:
    """SetDefaults_PodSpec, then every nested type's defaults (SetObjectDefaults_PodTemplate)."""
    rec.default(spec, "dnsPolicy", "ClusterFirst", path)
    rec.default(spec, "restartPolicy", "Always", path)
    rec.default_pointer(spec, "securityContext", {}, path)
    rec.default_pointer(spec, "terminationGracePeriodSeconds", GRACE_PERIOD_SECONDS, path)
    rec.default(spec, "schedulerName", SCHEDULER_NAME, path)
    for volume, volume_path in items(spec, "volumes", path):
        default_volume(volume, volume_path, rec)
    for key in ("initContainers", "containers", "ephemeralContainers"):
        for container, container_path in items(spec, key, path):
            default_container(container, container_path, rec)


def default_pod_template(template: dict[str, Any], path: str, rec: Recorder) -> None:
    """A PodTemplateSpec: its spec (a value-struct, so defaulted even when left out)."""
    spec, spec_path = child(template, "spec", path, rec, value=True)
    if spec is not None:
        default_pod_spec(spec, spec_path, rec)


def default_template_of(spec: dict[str, Any], path: str, rec: Recorder) -> None:
    """The pod template of a workload spec (Deployment, ReplicaSet, Job, ...)."""
    template, template_path = child(spec, "template", path, rec, value=True)
    if template is not None:
        default_pod_template(template, template_path, rec)
