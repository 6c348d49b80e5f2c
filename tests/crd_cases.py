"""One case per real CRD of tests/data/external/crds: fields to read, misspell, merge and refuse.

The engine, CLI, API and browser tests share this table, so each surface is tested on the same
CRDs with the same expectations.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.vectors import external_path


@dataclass(frozen=True)
class CrdCase:
    """A CRD file and what a policy on its kind should see."""

    id: str
    file: str
    group: str
    version: str
    kind: str
    plural: str
    namespaced: bool
    obj: dict[str, Any]
    valid: str  # true for `obj` and free of type-check warnings
    denied_change: tuple[str, Any]  # (dotted path, value) that makes `valid` false
    typo: str  # reads a misspelled field
    typo_field: str
    param_valid: str  # reads `params` (a `obj` of the same kind) without warnings
    param_typo: str
    param_typo_field: str
    completion_path: str  # after `object.`
    completion_field: str  # a field offered there
    completion_expect: tuple[str, str]  # ("detail" or "type", text it starts with)
    list_map: str  # an ApplyConfiguration merging into a list map
    list_map_check: tuple[str, Any]  # (dotted path, value) in the mutated object
    list_map_kept: str  # a dotted path the merge leaves as it was
    atomic: str  # an ApplyConfiguration setting an atomic list
    atomic_path: str  # the path SMD reports
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def path(self) -> Path:
        """The CRD file (the shared copy when present)."""
        return external_path("crds", *self.file.split("/"))

    @property
    def api_version(self) -> str:
        """apiVersion of the kind's case version."""
        return f"{self.group}/{self.version}"

    def object(self, name: str = "sample") -> dict[str, Any]:
        """A valid custom resource of the kind."""
        obj = copy.deepcopy(self.obj)
        obj["apiVersion"], obj["kind"] = self.api_version, self.kind
        meta = obj.setdefault("metadata", {})
        meta["name"] = name
        if self.namespaced:
            meta["namespace"] = "default"
        return obj

    def denied_object(self) -> dict[str, Any]:
        """The valid object with the one change that makes `valid` false."""
        obj = self.object()
        path, value = self.denied_change
        set_path(obj, path, value)
        return obj

    def rule(self) -> dict[str, Any]:
        """A resource rule matching the kind at the case version."""
        return {
            "apiGroups": [self.group],
            "apiVersions": [self.version],
            "operations": ["CREATE", "UPDATE"],
            "resources": [self.plural],
        }

    def vap(self, *expressions: str, params: bool = False) -> dict[str, Any]:
        """A ValidatingAdmissionPolicy on the kind with one validation per expression."""
        spec: dict[str, Any] = {
            "failurePolicy": "Fail",
            "matchConstraints": {"resourceRules": [self.rule()]},
            "validations": [{"expression": e} for e in expressions],
        }
        if params:
            spec["paramKind"] = {"apiVersion": self.api_version, "kind": self.kind}
        return {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicy",
            "metadata": {"name": f"{self.id}-policy"},
            "spec": spec,
        }

    def binding(self, param_name: str = "") -> dict[str, Any]:
        """A binding of `vap()` (with a paramRef by name when given)."""
        spec: dict[str, Any] = {
            "policyName": f"{self.id}-policy",
            "validationActions": ["Deny"],
        }
        if param_name:
            spec["paramRef"] = {"name": param_name, "parameterNotFoundAction": "Deny"}
            if self.namespaced:
                spec["paramRef"]["namespace"] = "default"
        return {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicyBinding",
            "metadata": {"name": f"{self.id}-binding"},
            "spec": spec,
        }

    def map(self, expression: str) -> dict[str, Any]:
        """A MutatingAdmissionPolicy applying one ApplyConfiguration to the kind."""
        return {
            "apiVersion": "admissionregistration.k8s.io/v1beta1",
            "kind": "MutatingAdmissionPolicy",
            "metadata": {"name": f"{self.id}-mutation"},
            "spec": {
                "failurePolicy": "Fail",
                "reinvocationPolicy": "Never",
                "matchConstraints": {"resourceRules": [self.rule()]},
                "mutations": [
                    {
                        "patchType": "ApplyConfiguration",
                        "applyConfiguration": {"expression": expression},
                    }
                ],
            },
        }


def set_path(obj: dict[str, Any], path: str, value: Any) -> None:
    """Set a dotted path ("spec.groups.0.name": list indexes as numbers)."""
    parts = path.split(".")
    target: Any = obj
    for part in parts[:-1]:
        target = target[int(part)] if isinstance(target, list) else target.setdefault(part, {})
    last = parts[-1]
    if isinstance(target, list):
        target[int(last)] = value
    else:
        target[last] = value


def get_path(obj: Any, path: str) -> Any:
    """Read a dotted path (list indexes as numbers); None when absent."""
    for part in path.split("."):
        if isinstance(obj, list):
            obj = obj[int(part)] if int(part) < len(obj) else None
        elif isinstance(obj, dict):
            obj = obj.get(part)
        else:
            return None
    return obj


CASES = [
    CrdCase(
        id="certificate",
        file="cert-manager/cert-manager.io_certificates.yaml",
        group="cert-manager.io",
        version="v1",
        kind="Certificate",
        plural="certificates",
        namespaced=True,
        obj={
            "spec": {
                "secretName": "tls-web",
                "issuerRef": {"name": "ca", "kind": "ClusterIssuer"},
                "dnsNames": ["web.example.com"],
                "privateKey": {"algorithm": "ECDSA", "size": 256},
            },
            "status": {"conditions": [{"type": "Issuing", "status": "False"}]},
        },
        valid="object.spec.dnsNames.all(n, n.endsWith('.example.com'))",
        denied_change=("spec.dnsNames", ["web.other.org"]),
        typo="object.spec.secretNme.startsWith('tls-')",
        typo_field="secretNme",
        param_valid="object.spec.issuerRef.name == params.spec.issuerRef.name",
        param_typo="object.spec.issuerRef.name == params.spec.issuerRf.name",
        param_typo_field="issuerRf",
        completion_path="spec.privateKey",
        completion_field="rotationPolicy",
        completion_expect=("detail", "RotationPolicy controls"),
        list_map=(
            'Object{status: Object.status{conditions: [Object.status.conditions{type: "Ready",'
            ' status: "True"}]}}'
        ),
        list_map_check=("status.conditions.1.type", "Ready"),
        list_map_kept="status.conditions.0.type",
        atomic='Object{spec: Object.spec{dnsNames: ["other.example.com"]}}',
        atomic_path=".spec.dnsNames",
    ),
    CrdCase(
        id="rollout",
        file="argo-rollouts/rollout-crd.yaml",
        group="argoproj.io",
        version="v1alpha1",
        kind="Rollout",
        plural="rollouts",
        namespaced=True,
        obj={
            "spec": {
                "replicas": 2,
                "selector": {"matchLabels": {"app": "web"}},
                "template": {
                    "metadata": {"labels": {"app": "web"}},
                    "spec": {"containers": [{"name": "app", "image": "nginx:1.27"}]},
                },
                "strategy": {
                    "canary": {
                        "maxSurge": "25%",
                        "steps": [{"setWeight": 20}, {"pause": {"duration": "1h"}}],
                    }
                },
            }
        },
        valid="object.spec.template.spec.containers.all(c, c.image.contains(':'))",
        denied_change=("spec.template.spec.containers.0.image", "nginx"),
        typo="object.spec.strategy.canary.maxSurg == '25%'",
        typo_field="maxSurg",
        param_valid="object.spec.replicas <= params.spec.replicas",
        param_typo="object.spec.replicas <= params.spec.replica",
        param_typo_field="replica",
        completion_path="spec.strategy.canary",
        completion_field="maxSurge",
        completion_expect=("type", "int-or-string"),
        list_map=(
            "Object{spec: Object.spec{template: Object.spec.template{spec: "
            'Object.spec.template.spec{containers: [Object.spec.template.spec.containers{name: "sidecar",'
            ' image: "envoy:1.31"}]}}}}'
        ),
        list_map_check=("spec.template.spec.containers.1.name", "sidecar"),
        list_map_kept="spec.template.spec.containers.0.name",
        atomic=(
            "Object{spec: Object.spec{template: Object.spec.template{spec: "
            "Object.spec.template.spec{tolerations: [Object.spec.template.spec.tolerations{"
            'key: "k", operator: "Exists"}]}}}}'
        ),
        atomic_path=".spec.template.spec.tolerations",
    ),
    CrdCase(
        id="prometheusrule",
        file="prometheus-operator/monitoring.coreos.com_prometheusrules.yaml",
        group="monitoring.coreos.com",
        version="v1",
        kind="PrometheusRule",
        plural="prometheusrules",
        namespaced=True,
        obj={
            "spec": {
                "groups": [
                    {"name": "team-a", "rules": [{"alert": "Down", "expr": "up == 0"}]},
                    {"name": "team-b", "rules": []},
                ]
            }
        },
        valid="object.spec.groups.all(g, g.name.startsWith('team-'))",
        denied_change=("spec.groups.0.name", "other"),
        typo="object.spec.grups.size() > 0",
        typo_field="grups",
        param_valid="object.spec.groups.size() <= params.spec.groups.size()",
        param_typo="object.spec.groups.size() <= params.spec.groupz.size()",
        param_typo_field="groupz",
        completion_path="spec.groups",
        completion_field="interval",
        completion_expect=("detail", "interval defines"),
        list_map=(
            'Object{spec: Object.spec{groups: [Object.spec.groups{name: "team-b", interval: "1m"},'
            ' Object.spec.groups{name: "team-c"}]}}'
        ),
        list_map_check=("spec.groups.1.interval", "1m"),
        list_map_kept="spec.groups.0.name",
        atomic=(
            'Object{spec: Object.spec{groups: [Object.spec.groups{name: "team-a", rules: '
            '[Object.spec.groups.rules{alert: "X", expr: "1"}]}]}}'
        ),
        atomic_path=".spec.groups[0].rules",
    ),
    CrdCase(
        id="gateway",
        file="gateway-api/gateway.networking.k8s.io_gateways.yaml",
        group="gateway.networking.k8s.io",
        version="v1",
        kind="Gateway",
        plural="gateways",
        namespaced=True,
        obj={
            "spec": {
                "gatewayClassName": "eg",
                "listeners": [{"name": "http", "port": 80, "protocol": "HTTP"}],
            }
        },
        valid="object.spec.listeners.all(l, l.protocol != 'TCP')",
        denied_change=("spec.listeners.0.protocol", "TCP"),
        typo="object.spec.gatewayClass == 'eg'",
        typo_field="gatewayClass",
        param_valid="object.spec.gatewayClassName == params.spec.gatewayClassName",
        param_typo="object.spec.gatewayClassName == params.spec.gatewayClassNme",
        param_typo_field="gatewayClassNme",
        completion_path="spec.listeners",
        completion_field="allowedRoutes",
        completion_expect=("detail", "AllowedRoutes defines"),
        list_map=(
            'Object{spec: Object.spec{listeners: [Object.spec.listeners{name: "https", port: 443,'
            ' protocol: "HTTPS"}]}}'
        ),
        list_map_check=("spec.listeners.1.name", "https"),
        list_map_kept="spec.listeners.0.name",
        atomic='Object{spec: Object.spec{addresses: [Object.spec.addresses{value: "10.0.0.1"}]}}',
        atomic_path=".spec.addresses",
    ),
    CrdCase(
        id="composition",
        file="crossplane/apiextensions.crossplane.io_compositions.yaml",
        group="apiextensions.crossplane.io",
        version="v1",
        kind="Composition",
        plural="compositions",
        namespaced=False,
        obj={
            "spec": {
                "compositeTypeRef": {"apiVersion": "example.org/v1", "kind": "XDatabase"},
                "mode": "Pipeline",
                "pipeline": [{"step": "render", "functionRef": {"name": "fn-render"}}],
            }
        },
        valid="object.spec.mode == 'Pipeline'",
        denied_change=("spec.mode", "Resources"),
        typo="object.spec.compositeTypeRf.kind == 'XDatabase'",
        typo_field="compositeTypeRf",
        param_valid="object.spec.compositeTypeRef.kind == params.spec.compositeTypeRef.kind",
        param_typo="object.spec.compositeTypeRef.kind == params.spec.compositeTypRef.kind",
        param_typo_field="compositeTypRef",
        completion_path="spec.pipeline",
        completion_field="functionRef",
        completion_expect=("detail", "FunctionRef is a reference"),
        list_map=(
            'Object{spec: Object.spec{pipeline: [Object.spec.pipeline{step: "ready", '
            'functionRef: Object.spec.pipeline.functionRef{name: "fn-ready"}}]}}'
        ),
        list_map_check=("spec.pipeline.1.step", "ready"),
        list_map_kept="spec.pipeline.0.step",
        atomic='Object{spec: Object.spec{resources: [Object.spec.resources{name: "db"}]}}',
        atomic_path=".spec.resources",
    ),
    CrdCase(
        id="constrainttemplate",
        file="gatekeeper/constrainttemplate-customresourcedefinition.yaml",
        group="templates.gatekeeper.sh",
        version="v1",
        kind="ConstraintTemplate",
        plural="constrainttemplates",
        namespaced=False,
        obj={
            "spec": {
                "crd": {"spec": {"names": {"kind": "K8sRequiredLabels"}}},
                "targets": [
                    {
                        "target": "admission.k8s.gatekeeper.sh",
                        "rego": "package k8srequiredlabels",
                        "code": [{"engine": "K8sNativeValidation", "source": {"x": 1}}],
                    }
                ],
            }
        },
        valid="object.spec.crd.spec.names.kind.startsWith('K8s')",
        denied_change=("spec.crd.spec.names.kind", "RequiredLabels"),
        typo="object.spec.crd.spec.name.kind == 'K8sRequiredLabels'",
        typo_field="name",
        param_valid="object.spec.targets.size() <= params.spec.targets.size()",
        param_typo="object.spec.targets.size() <= params.spec.target.size()",
        param_typo_field="target",
        completion_path="spec.targets",
        completion_field="code",
        completion_expect=("detail", "The source code options"),
        # spec.targets is an untagged (atomic) list: its list map `code` (keyed by engine) can
        # only be replaced with it, so the merge case merges a granular map (metadata.labels),
        # the atomic case shows SMD refusing the whole list, and the duplicate-key check of the
        # `code` list map is tested on its own (test_crds).
        list_map='Object{metadata: Object.metadata{labels: {"team": "platform"}}}',
        list_map_check=("metadata.labels.team", "platform"),
        list_map_kept="spec.targets.0.target",
        atomic=(
            'Object{spec: Object.spec{targets: [Object.spec.targets{target: "t", code: '
            '[Object.spec.targets.code{engine: "Rego"}]}]}}'
        ),
        atomic_path=".spec.targets",
    ),
]

BY_ID = {case.id: case for case in CASES}
