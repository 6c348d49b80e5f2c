"""Applying one MAP mutation's value to the object: JSON Patch + strict decoding, or apply merge."""

from __future__ import annotations

from typing import Any

import yaml

from policyeditor.engine import schemas
from policyeditor.engine.admission.mutating.patch.applyconfig import ApplyError, apply_configuration
from policyeditor.engine.admission.mutating.patch.jsonpatch import (
    JSONPatchError,
    PatchTestFailed,
    apply_patch,
)
from policyeditor.engine.admission.mutating.patch.typedobject import DecodeError, strict_decode
from policyeditor.engine.jsontypes import list_at, object_at
from policyeditor.engine.manifests.diff import unified_text

INTERNAL_PREFIX = "Internal error occurred: "
_PATCH_FIELDS = ("op", "path", "from", "value")


def text_diff(before: Any, after: Any, *, label: str = "object") -> str:
    """A unified diff of two objects as YAML ("" when equal)."""
    if before == after:
        return ""
    old = yaml.safe_dump(before, sort_keys=False, default_flow_style=False)
    new = yaml.safe_dump(after, sort_keys=False, default_flow_style=False)
    return unified_text(old, new, fromfile=f"{label} (before)", tofile=f"{label} (after)")


def patch_ops(value: Any) -> list[dict[str, Any]]:
    """The JSONPatch list an expression returned, as plain operation dicts."""
    if not isinstance(value, list):
        raise JSONPatchError(f"expected a list of JSONPatch, got {type(value).__name__}")
    ops = []
    for item in value:
        if isinstance(item, dict):
            op = {k: item[k] for k in _PATCH_FIELDS if k in item}
        else:
            op = {k: getattr(item, k) for k in _PATCH_FIELDS if hasattr(item, k)}
        # JSONPatch{} leaves unset strings empty; the API server only sends `from` when set.
        if op.get("from") in ("", None):
            op.pop("from", None)
        ops.append(op)
    return ops


_OBJECT_META = {"$ref": "#/$defs/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}


def crd_schema(resources: list[dict[str, Any]], obj: Any) -> dict[str, Any] | None:
    """The structural schema of a custom resource, from its CustomResourceDefinition."""
    # The API server's type converter knows metadata as ObjectMeta for every kind, so it is added
    # when the CRD schema leaves it open.
    if not isinstance(obj, dict):
        return None
    group, _, version = str(obj.get("apiVersion") or "").rpartition("/")
    kind = obj.get("kind")
    if schemas.is_custom_kind(group, version, str(kind or "")):
        return schemas.schema_for(group, version, str(kind or ""))  # the CRDs in force
    for crd in resources:
        if not isinstance(crd, dict) or crd.get("kind") != "CustomResourceDefinition":
            continue
        spec = object_at(crd, "spec")
        names = object_at(spec, "names")
        if spec.get("group") != group or names.get("kind") != kind:
            continue
        versions = list_at(spec, "versions")
        for entry in versions:
            if not isinstance(entry, dict) or entry.get("name") != version:
                continue
            schema = (entry.get("schema") or {}).get("openAPIV3Schema")
            if not isinstance(schema, dict):
                return None
            schema = dict(schema)
            properties = dict(schema.get("properties") or {})
            meta = properties.get("metadata")
            if not isinstance(meta, dict) or "properties" not in meta:
                properties["metadata"] = _OBJECT_META
            properties.setdefault("apiVersion", {"type": "string"})
            properties.setdefault("kind", {"type": "string"})
            schema["properties"] = properties
            return schema
    return None


def apply_mutation(
    kind: str,
    value: Any,
    current: dict[str, Any],
    version: str,
    schema: dict[str, Any] | None = None,
) -> tuple[dict[str, Any], str]:
    """Apply one mutation's evaluated value to the current object: (new object, error text)."""
    # `schema` is a custom resource's schema (crd_schema); built-in kinds use their OpenAPI
    # schema.
    if kind == "JSONPatch":
        try:
            ops = patch_ops(value)
            patched = apply_patch(current, ops)
        except PatchTestFailed:
            return current, ""
        except JSONPatchError as exc:
            return current, f"JSON Patch: {exc}"
        if schema is not None:
            return patched, ""  # custom resources stay unstructured: no strict typed decoding
        try:
            return strict_decode(patched, k8s_version=version), ""
        except DecodeError as exc:
            # json_patch.go wraps decode failures in NewInternalError: a status error that
            # aborts the whole request whatever the failurePolicy.
            return current, f"{INTERNAL_PREFIX}{exc}"
    try:
        return apply_configuration(current, value, k8s_version=version, schema=schema), ""
    except ApplyError as exc:
        return current, str(exc)
