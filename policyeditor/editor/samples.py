"""Sample objects for the Try-it tab: one of the kind the policy matches first."""

from __future__ import annotations

from typing import Any

from policyeditor.engine import schemas
from policyeditor.engine.versions import DEFAULT_VERSION, family

_POD_SPEC = {"containers": [{"name": "app", "image": "registry.k8s.io/nginx:1.27"}]}
_SPECS: dict[str, dict[str, Any]] = {
    "Deployment": {
        "replicas": 6,
        "selector": {"matchLabels": {"app": "web"}},
        "template": {"metadata": {"labels": {"app": "web"}}, "spec": _POD_SPEC},
    },
    "StatefulSet": {
        "replicas": 3,
        "serviceName": "web",
        "selector": {"matchLabels": {"app": "web"}},
        "template": {"metadata": {"labels": {"app": "web"}}, "spec": _POD_SPEC},
    },
    "Pod": _POD_SPEC,
    "Service": {"type": "ClusterIP", "ports": [{"port": 80}], "selector": {"app": "web"}},
}
_TOP: dict[str, dict[str, Any]] = {"ConfigMap": {"data": {"key": "value"}}}


def _first_rule(documents: list[dict]) -> dict | None:
    for doc in documents:
        if family(str(doc.get("kind", ""))) and not str(doc.get("kind", "")).endswith("Binding"):
            rules = ((doc.get("spec") or {}).get("matchConstraints") or {}).get("resourceRules")
            if isinstance(rules, list) and rules and isinstance(rules[0], dict):
                return rules[0]
    return None


def _pick(values: Any, default: str) -> str:
    if isinstance(values, list):
        for value in values:
            if isinstance(value, str) and value != "*":
                return value
    return default


def sample_object(documents: list[dict], version: str = DEFAULT_VERSION) -> dict:
    """An object of the kind the draft's first resource rule matches (a Deployment if unknown)."""
    rule = _first_rule(documents) or {}
    group = _pick(rule.get("apiGroups"), "apps")
    api = _pick(rule.get("apiVersions"), "v1")
    resource = _pick(rule.get("resources"), "deployments").split("/", 1)[0]
    info = schemas.kind_for_resource(group, api, resource, version)
    if info is None:
        info = schemas.kind_for_resource("apps", "v1", "deployments", version)
    kind = info.kind if info else "Deployment"
    api_version = info.api_version if info else "apps/v1"
    metadata: dict[str, Any] = {"name": "example", "labels": {"app": "web"}}
    if info is None or info.namespaced:
        metadata["namespace"] = "default"
    obj: dict[str, Any] = {"apiVersion": api_version, "kind": kind, "metadata": metadata}
    if kind in _SPECS:
        obj["spec"] = _SPECS[kind]
    obj.update(_TOP.get(kind, {}))
    return obj
