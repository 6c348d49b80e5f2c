"""The side files of a Kyverno CLI test: Values (namespace labels) and UserInfo, and the namespaces.

kyverno/kyverno cmd/cli/kubectl-kyverno/apis/v1alpha1 values.go (ValuesSpec.namespaceSelector) and
user_info.go (RequestInfo.userInfo); the namespaces are given as the API server stores them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from policyeditor.engine.objects import namespace_of
from policyeditor.engine.schemas.resources import resource_for_kind
from policyeditor.engine.suites.files import load_documents
from policyeditor.engine.suites.model import SuiteError


def side_file(
    base: Path, test: dict[str, Any], key: str, kinds: tuple[str, ...], problems: list[str]
) -> dict[str, Any] | None:
    """The one document of a `variables` or `userinfo` file, checked to be of one of `kinds`."""
    relative = test.get(key)
    if not relative:
        return None
    try:
        docs = load_documents(base / relative, what=f"{key} file")
    except SuiteError as error:
        problems.append(f"{key}: {relative}: {error.message} ({error.source})")
        return None
    if len(docs) != 1:
        problems.append(f"{key}: {relative}: expected one YAML document, found {len(docs)}")
        return None
    doc = docs[0]
    kind = doc.get("kind")
    if kind is not None and kind not in kinds:
        problems.append(f"{key}: {relative}: expected {' or '.join(kinds)}, found {kind}")
        return None
    return doc


def namespace_labels(
    base: Path, test: dict[str, Any], problems: list[str]
) -> dict[str, dict[str, str]]:
    """Namespace name -> labels, from the Values file and the inline `values` (values.go)."""
    # Kyverno reads both kinds' spellings: `Values` (the type) and `Value` (its own test data).
    specs = [side_file(base, test, "variables", ("Values", "Value"), problems), test.get("values")]
    labels: dict[str, dict[str, str]] = {}
    for spec in specs:
        if not isinstance(spec, dict):
            continue
        for index, entry in enumerate(spec.get("namespaceSelector") or []):
            name = entry.get("name") if isinstance(entry, dict) else None
            given = entry.get("labels") if isinstance(entry, dict) else None
            if not isinstance(name, str) or not isinstance(given or {}, dict):
                problems.append(f"namespaceSelector[{index}]: expected a name and a map of labels")
                continue
            labels[name] = {str(k): str(v) for k, v in (given or {}).items()}
    return labels


def user_info(base: Path, test: dict[str, Any], problems: list[str]) -> dict[str, Any] | None:
    """The request's userInfo from a UserInfo file (user_info.go: RequestInfo's `userInfo`)."""
    doc = side_file(base, test, "userinfo", ("UserInfo",), problems)
    if doc is None:
        return None
    raw = doc.get("userInfo")
    if raw is None:
        return None  # roles and clusterRoles alone: used by Kyverno policies only
    if not isinstance(raw, dict):
        problems.append("userinfo: userInfo: expected a mapping")
        return None
    return {k: raw[k] for k in ("username", "uid", "groups", "extra") if raw.get(k) is not None}


def namespaces(
    labels: dict[str, dict[str, str]], objects: list[dict[str, Any]], version: str | None
) -> list[dict[str, Any]]:
    """The namespaces the cluster holds: those of the values file, and each one a resource uses."""
    # The API server reads namespace labels from the real namespace, which carries the automatic
    # kubernetes.io/metadata.name label (pkg/registry/core/namespace/strategy.go, PrepareForCreate).
    names = dict.fromkeys(labels)
    for obj in objects:
        namespace = namespace_of(obj) or ("default" if namespaced(obj, version) else "")
        if namespace and obj.get("kind") != "Namespace":
            names.setdefault(namespace)
    return [
        {
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {
                "name": name,
                "labels": {**labels.get(name, {}), "kubernetes.io/metadata.name": name},
            },
        }
        for name in names
    ]


def namespaced(obj: dict[str, Any], version: str | None) -> bool:
    group, _, api_version = str(obj.get("apiVersion", "")).rpartition("/")
    args = (group, api_version, str(obj.get("kind", "")))
    info = resource_for_kind(*args, version) if version else resource_for_kind(*args)
    return info.namespaced if info is not None else bool(namespace_of(obj))
