"""Sample objects for the Try-it tab: one of the kind the policy matches first."""

from __future__ import annotations

from typing import Any

from policyeditor.engine import schemas
from policyeditor.engine.jsontypes import object_at
from policyeditor.engine.objects import family
from policyeditor.engine.versions import DEFAULT_VERSION

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
            # Typed as pasted (spec may be a string): the sample must not fail on bad input.
            spec = object_at(doc, "spec")
            constraints = spec.get("matchConstraints")
            rules = constraints.get("resourceRules") if isinstance(constraints, dict) else None
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


def _selectors(documents: list[dict]) -> list[dict]:
    """Every namespaceSelector of the policies and bindings."""
    found = []
    for doc in documents:
        spec = object_at(doc, "spec")
        for key in ("matchConstraints", "matchResources"):
            block = object_at(spec, key)
            selector = block.get("namespaceSelector")
            if isinstance(selector, dict):
                found.append(selector)
    return found


def sample_namespace(documents: list[dict], name: str = "default") -> dict:
    """A Namespace whose labels satisfy the draft's namespace selectors (where they can)."""
    labels: dict[str, str] = {}
    for selector in _selectors(documents):
        match = selector.get("matchLabels")
        if isinstance(match, dict):
            labels.update({str(k): str(v) for k, v in match.items()})
        for expression in selector.get("matchExpressions") or []:
            if not isinstance(expression, dict) or not isinstance(expression.get("key"), str):
                continue
            values = expression.get("values") or [""]
            if expression.get("operator") == "In":
                labels[expression["key"]] = str(values[0])
            elif expression.get("operator") == "Exists":
                labels[expression["key"]] = "true"
    labels.setdefault("kubernetes.io/metadata.name", name)
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": labels}}
