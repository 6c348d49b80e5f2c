"""A CRD version's schema: checked as a structural schema, published as kube-apiserver serves it.

The checks are kube-apiserver's (kubernetes/kubernetes staging/src/k8s.io/apiextensions-apiserver/
pkg/apiserver/schema/validation.go, ValidateStructural), in its words. The published schema is the
one kube-apiserver serves for a CRD (pkg/controller/openapi/builder/builder.go): apiVersion, kind and
metadata (ObjectMeta) added at the root and on every x-kubernetes-embedded-resource.
"""

from __future__ import annotations

from typing import Any

from policyeditor.engine import apimachinery
from policyeditor.engine.errors import FieldError
from policyeditor.engine.schemas.objects import compile_pattern

_OBJECT_META = {"$ref": "#/$defs/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}
_SCHEMA_FIELDS_FORBIDDEN = ("$ref", "$schema", "definitions", "id", "patternProperties")


def _types(schema: dict[str, Any]) -> str:
    raw = schema.get("type")
    return raw if isinstance(raw, str) else ""


def check_structural(schema: Any, path: str, level: str, errors: list[FieldError]) -> None:
    """The structural-schema invariants a CRD schema must keep (schema/validation.go)."""
    if not isinstance(schema, dict):
        errors.append(apimachinery.invalid(path, schema, "must be an object"))
        return
    for name in _SCHEMA_FIELDS_FORBIDDEN:
        if name in schema:
            errors.append(apimachinery.forbidden(apimachinery.child(path, name), "must be empty"))
    kind = _types(schema)
    int_or_string = bool(schema.get("x-kubernetes-int-or-string"))
    preserve = bool(schema.get("x-kubernetes-preserve-unknown-fields"))
    embedded = bool(schema.get("x-kubernetes-embedded-resource"))
    if kind == "array" and not isinstance(schema.get("items"), dict):
        errors.append(apimachinery.required(f"{path}.items", "must be specified"))
    if isinstance(schema.get("items"), dict):
        check_structural(schema["items"], f"{path}.items", "item", errors)
    properties = schema.get("properties")
    if properties is not None and not isinstance(properties, dict):
        errors.append(apimachinery.invalid(f"{path}.properties", properties, "must be an object"))
        properties = None
    for key, sub in sorted((properties or {}).items()):
        check_structural(sub, f"{path}.properties[{key}]", "field", errors)
    additional = schema.get("additionalProperties")
    if additional is not None and additional is not False:
        if level == "root":
            errors.append(
                apimachinery.forbidden(
                    f"{path}.additionalProperties", "must not be used at the root"
                )
            )
        if properties:
            errors.append(
                apimachinery.forbidden(
                    f"{path}.additionalProperties",
                    "additionalProperties and properties are mutual exclusive",
                )
            )
        if isinstance(additional, dict):
            check_structural(additional, f"{path}.additionalProperties", "field", errors)
    if int_or_string and preserve:
        errors.append(
            apimachinery.invalid(
                f"{path}.x-kubernetes-preserve-unknown-fields",
                True,
                "must be false if x-kubernetes-int-or-string is true",
            )
        )
    if embedded and kind != "object":
        if not kind:
            errors.append(
                apimachinery.required(
                    f"{path}.type", "must be object if x-kubernetes-embedded-resource is true"
                )
            )
        else:
            errors.append(
                apimachinery.invalid(
                    f"{path}.type", kind, "must be object if x-kubernetes-embedded-resource is true"
                )
            )
    elif not kind and not int_or_string and not preserve:
        where = {
            "root": "must not be empty at the root",
            "item": "must not be empty for specified array items",
            "field": "must not be empty for specified object fields",
        }[level]
        errors.append(apimachinery.required(f"{path}.type", where))
    if level == "root" and kind and kind != "object":
        errors.append(apimachinery.invalid(f"{path}.type", kind, "must be object at the root"))
    list_type = schema.get("x-kubernetes-list-type")
    if list_type is not None:
        if list_type not in ("atomic", "set", "map"):
            errors.append(
                apimachinery.not_supported(
                    f"{path}.x-kubernetes-list-type", list_type, ("atomic", "set", "map")
                )
            )
        elif kind != "array":
            errors.append(
                apimachinery.invalid(
                    f"{path}.x-kubernetes-list-type",
                    list_type,
                    "must only be used if type is array",
                )
            )
    keys = schema.get("x-kubernetes-list-map-keys")
    if list_type == "map" and not keys:
        errors.append(
            apimachinery.required(
                f"{path}.x-kubernetes-list-map-keys",
                "must not be empty if x-kubernetes-list-type is map",
            )
        )
    if keys and list_type != "map":
        errors.append(
            apimachinery.forbidden(
                f"{path}.x-kubernetes-list-map-keys",
                "must be empty if x-kubernetes-list-type is not map",
            )
        )
    if list_type == "map" and isinstance(keys, list) and isinstance(schema.get("items"), dict):
        item_props = schema["items"].get("properties") or {}
        for position, key in enumerate(keys):
            if key not in item_props:
                errors.append(
                    apimachinery.invalid(
                        f"{path}.x-kubernetes-list-map-keys[{position}]",
                        key,
                        "entries must all be names of item properties",
                    )
                )
    pattern = schema.get("pattern")
    if isinstance(pattern, str) and compile_pattern(pattern) is None:
        errors.append(
            apimachinery.invalid(
                f"{path}.pattern", pattern, "must be a valid regular expression, but isn't"
            )
        )
    map_type = schema.get("x-kubernetes-map-type")
    if map_type is not None and map_type not in ("granular", "atomic"):
        errors.append(
            apimachinery.not_supported(
                f"{path}.x-kubernetes-map-type", map_type, ("granular", "atomic")
            )
        )


def published_schema(schema: dict[str, Any], *, root: bool) -> dict[str, Any]:
    """The published form: apiVersion, kind and metadata on the root and on embedded resources."""
    # kubernetes/kubernetes staging/src/k8s.io/apiextensions-apiserver/pkg/controller/openapi/
    # builder/builder.go (addTypeMetaProperties, addEmbeddedProperties).
    out = dict(schema)
    if root or schema.get("x-kubernetes-embedded-resource"):
        properties = dict(out.get("properties") or {})
        meta = properties.get("metadata")
        if not isinstance(meta, dict) or "properties" not in meta or root:
            merged = dict(_OBJECT_META)
            if isinstance(meta, dict) and isinstance(meta.get("description"), str):
                merged["description"] = meta["description"]
            properties["metadata"] = merged
        properties.setdefault("apiVersion", {"type": "string"})
        properties.setdefault("kind", {"type": "string"})
        out["properties"] = properties
    if isinstance(out.get("properties"), dict):
        out["properties"] = {
            k: published_schema(v, root=False)
            if isinstance(v, dict) and not k.startswith("$")
            else v
            for k, v in out["properties"].items()
        }
    if isinstance(out.get("items"), dict):
        out["items"] = published_schema(out["items"], root=False)
    if isinstance(out.get("additionalProperties"), dict):
        out["additionalProperties"] = published_schema(out["additionalProperties"], root=False)
    return out
