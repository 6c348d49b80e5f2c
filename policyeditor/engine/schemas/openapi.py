"""Kubernetes OpenAPI schemas (kubernetes-validate): types, list types, map keys, docs.

The table of built-in REST resources (plural, scope, subresources) is in resources.py. Schemas are the JSON schemas kubernetes-validate ships per Kubernetes
version, loaded lazily and cached. `$ref`s are resolved on access (`resolve`, `child_schema`,
`items_schema`, `schema_at_path`) rather than expanded up front, because some definitions are
recursive (JSONSchemaProps); every schema handed out is a plain dict that is safe to JSON-encode.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import kubernetes_validate

from policyeditor.engine.schemas import layer
from policyeditor.engine.versions import DEFAULT_VERSION, KUBERNETES_VERSIONS, parse_version

_REF_MARKER = "#/$defs/"


def _schema_base() -> Path:
    return Path(kubernetes_validate.__file__).resolve().parent / "kubernetes-json-schema"


class SchemasUnavailable(RuntimeError):
    """kubernetes-validate's schemas cannot be read: a broken install, never a silent pass."""


def version_key(k8s_version: str | None) -> str:
    """A "1.NN" key for the cache; unknown or malformed versions fall back to the default."""
    if not k8s_version:
        return DEFAULT_VERSION
    try:
        major, minor = parse_version(str(k8s_version))
    except ValueError:
        return DEFAULT_VERSION
    return f"{major}.{minor}"


@lru_cache(maxsize=16)
def _schema_dir(key: str) -> Path:
    base = _schema_base()
    available: dict[tuple[int, int], Path] = {}
    if base.is_dir():
        for entry in base.iterdir():
            name = entry.name
            if not name.startswith("v") or not name.endswith("-local"):
                continue
            try:
                available[parse_version(name[1:].removesuffix("-local"))] = entry
            except ValueError:
                continue
    if not available:
        raise SchemasUnavailable(f"kubernetes-validate ships no schemas in {base}: reinstall it")
    wanted = parse_version(key)
    # Prefer the exact release, else the newest one not after it, else the oldest we have.
    older = [v for v in available if v <= wanted]
    return available[max(older)] if older else available[min(available)]


@lru_cache(maxsize=16)
def definitions_by_key(key: str) -> dict[str, dict[str, Any]]:
    """The OpenAPI definitions of a "1.NN" version key (see `version_key`)."""
    path = _schema_dir(key) / "_definitions.json"
    try:
        with path.open(encoding="utf-8") as handle:
            definitions: dict[str, dict[str, Any]] = json.load(handle)["$defs"]
            return definitions
    except (OSError, ValueError, KeyError) as exc:
        raise SchemasUnavailable(f"cannot read {path}: {exc}") from exc


def definitions(k8s_version: str | None = DEFAULT_VERSION) -> dict[str, dict[str, Any]]:
    """All OpenAPI definitions of a Kubernetes version, keyed by their Go type name."""
    return definitions_by_key(version_key(k8s_version))


@lru_cache(maxsize=16)
def gvk_index(version_key: str) -> dict[tuple[str, str, str], str]:
    index: dict[tuple[str, str, str], str] = {}
    for name, schema in definitions_by_key(version_key).items():
        for gvk in schema.get("x-kubernetes-group-version-kind", ()):
            key = (gvk.get("group", ""), gvk.get("version", ""), gvk.get("kind", ""))
            # DeleteOptions & co. carry many GVKs; the first definition to claim one wins.
            index.setdefault(key, name)
    return index


def definition_name(
    group: str, version: str, kind: str, k8s_version: str = DEFAULT_VERSION
) -> str | None:
    """The OpenAPI definition name of a GVK ("io.k8s.api.apps.v1.Deployment"), or None."""
    return gvk_index(version_key(k8s_version)).get((group or "", version or "", kind or ""))


def resolve(
    schema: dict[str, Any] | None, k8s_version: str = DEFAULT_VERSION
) -> dict[str, Any] | None:
    """Follow a `$ref` (repeatedly); local keys such as description win over the target's."""
    seen = 0
    while isinstance(schema, dict) and "$ref" in schema and seen < 32:
        ref = str(schema["$ref"])
        name = ref.split(_REF_MARKER, 1)[1] if _REF_MARKER in ref else ref.rsplit("/", 1)[-1]
        target = definitions(k8s_version).get(name)
        if target is None:
            return {k: v for k, v in schema.items() if k != "$ref"}
        merged = dict(target)
        merged.update({k: v for k, v in schema.items() if k != "$ref"})
        schema = merged
        seen += 1
    return schema if isinstance(schema, dict) else None


def schema_for(
    group: str, version: str, kind: str, k8s_version: str = DEFAULT_VERSION
) -> dict[str, Any] | None:
    """The top-level schema of a kind (refs resolved on access), or None if the kind is unknown."""
    # Built-in kinds first, then the CRDs in force (layer.using): one place for every consumer.
    name = definition_name(group, version, kind, k8s_version)
    if name is None:
        custom = layer.active()
        return custom.schema_for(group or "", version, kind) if custom is not None else None
    return resolve(definitions(k8s_version).get(name), k8s_version)


def is_custom_kind(group: str, version: str, kind: str, k8s_version: str = DEFAULT_VERSION) -> bool:
    """True when a GVK's schema comes from a CRD in force rather than the built-in OpenAPI."""
    if definition_name(group, version, kind, k8s_version) is not None:
        return False
    custom = layer.active()
    return custom is not None and custom.schema_for(group or "", version, kind) is not None


def schema_types(schema: dict[str, Any] | None) -> set[str]:
    """The JSON types a schema allows ("object", "array", ...), without "null"."""
    if not schema:
        return set()
    raw = schema.get("type")
    if raw is None and "oneOf" in schema:
        found: set[str] = set()
        for option in schema["oneOf"]:
            found |= schema_types(option)
        return found
    types = {raw} if isinstance(raw, str) else set(raw or ())
    types.discard("null")
    return types


def is_object_schema(schema: dict[str, Any] | None) -> bool:
    """True for a struct or map schema."""
    if not schema:
        return False
    return (
        "object" in schema_types(schema)
        or "properties" in schema
        or "additionalProperties" in schema
    )


def is_array_schema(schema: dict[str, Any] | None) -> bool:
    """True for a list schema."""
    if not schema:
        return False
    return "array" in schema_types(schema) or "items" in schema


def is_struct_schema(schema: dict[str, Any] | None) -> bool:
    """True for a schema with named properties (a Go struct), false for a string-keyed map."""
    if not schema:
        return False
    return "properties" in schema


def child_schema(
    schema: dict[str, Any] | None, field: str, k8s_version: str = DEFAULT_VERSION
) -> dict[str, Any] | None:
    """The schema of `field` in an object schema: a property, or the map's value schema."""
    schema = resolve(schema, k8s_version)
    if not schema:
        return None
    properties = schema.get("properties")
    if isinstance(properties, dict) and field in properties:
        return resolve(properties[field], k8s_version)
    additional = schema.get("additionalProperties")
    if isinstance(additional, dict):
        return resolve(additional, k8s_version)
    return None


def items_schema(
    schema: dict[str, Any] | None, k8s_version: str = DEFAULT_VERSION
) -> dict[str, Any] | None:
    """The element schema of a list schema."""
    schema = resolve(schema, k8s_version)
    if not schema or not isinstance(schema.get("items"), dict):
        return None
    return resolve(schema["items"], k8s_version)


def _split_path(path: str | Sequence[str | int]) -> list[str | int]:
    if isinstance(path, str):
        segments: list[str | int] = []
        for part in path.strip(".").split("."):
            if not part:
                continue
            # "containers[0]" and "containers[]" both step into the list's elements.
            while "[" in part and part.endswith("]"):
                head, _, rest = part.partition("[")
                if head:
                    segments.append(head)
                index = rest[:-1]
                numeric = index.isascii() and index.isdigit() and len(index) <= 9
                segments.append(int(index) if numeric else 0)
                part = ""
            if part:
                segments.append(part)
        return segments
    return list(path)


def schema_at_path(
    root: dict[str, Any] | None, path: str | Sequence[str | int], k8s_version: str = DEFAULT_VERSION
) -> dict[str, Any] | None:
    """The schema reached from `root` along a field path ("spec.containers[0].ports")."""
    # Integer segments step into list elements; a field name on a list schema also steps in, so
    # `spec.containers.ports` works like the MAP type names `Object.spec.containers.ports`.
    schema = resolve(root, k8s_version)
    for segment in _split_path(path):
        if schema is None:
            return None
        if isinstance(segment, int):
            schema = items_schema(schema, k8s_version)
            continue
        if is_array_schema(schema) and not is_object_schema(schema):
            schema = items_schema(schema, k8s_version)
            if schema is None:
                return None
        schema = child_schema(schema, segment, k8s_version)
    return schema


def list_type(schema: dict[str, Any] | None) -> str | None:
    """x-kubernetes-list-type of a list schema: atomic, set or map (untagged lists: atomic)."""
    if not is_array_schema(schema):
        return None
    assert schema is not None
    value = schema.get("x-kubernetes-list-type")
    if isinstance(value, str) and value in ("atomic", "set", "map"):
        return value
    return "atomic"


def list_map_keys(schema: dict[str, Any] | None) -> tuple[str, ...]:
    """The x-kubernetes-list-map-keys of a listType=map schema (empty otherwise)."""
    if not schema:
        return ()
    return tuple(schema.get("x-kubernetes-list-map-keys") or ())


def map_type(schema: dict[str, Any] | None) -> str | None:
    """x-kubernetes-map-type of a struct or map schema: "atomic" or "granular" (the default)."""
    if not is_object_schema(schema):
        return None
    assert schema is not None
    return "atomic" if schema.get("x-kubernetes-map-type") == "atomic" else "granular"


def is_atomic(schema: dict[str, Any] | None) -> bool:
    """True when the schema is replaced as a whole by a merge (atomic list, map or struct)."""
    if is_array_schema(schema):
        return list_type(schema) == "atomic"
    if is_object_schema(schema):
        return map_type(schema) == "atomic"
    return False


def field_doc(
    group: str,
    version: str,
    kind: str,
    path: str | Sequence[str | int] = "",
    k8s_version: str = DEFAULT_VERSION,
) -> str | None:
    """The OpenAPI description of a field of a kind ("" path: the kind itself), or None."""
    root = schema_for(group, version, kind, k8s_version)
    schema = schema_at_path(root, path, k8s_version) if path else root
    if not schema:
        return None
    description = schema.get("description")
    return description if isinstance(description, str) else None


def supported_k8s_versions() -> tuple[str, ...]:
    """The Kubernetes versions the engine targets (the schemas cover each of them)."""
    return KUBERNETES_VERSIONS
