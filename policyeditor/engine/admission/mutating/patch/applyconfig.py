"""ApplyConfiguration mutations: structured-merge-diff `TypedValue.Merge(live, patch)` on JSON.

Follows kubernetes/apiserver mutating/patch/smd.go (ApplyStructuredMergeDiff) and
structured-merge-diff v6 typed/merge.go: the patch is converted to a typed value with the kind's
OpenAPI schema (unknown fields refused), refused if it sets anything atomic, then merged with the
live object: scalars and atomic values replaced, granular maps/structs merged key by key, list
maps merged by key and sets by value, with merge.go's item ordering.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from policyeditor.engine import schemas
from policyeditor.engine.admission.mutating.patch.quantities import QuantityError, canonicalize
from policyeditor.engine.jsonkinds import type_name
from policyeditor.engine.versions import DEFAULT_VERSION

_ABSENT = object()


class ApplyError(Exception):
    """An apply configuration that cannot be applied; str() is the Kubernetes error text."""


def _key_text(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _element_path(schema: dict[str, Any] | None, item: Any, index: int) -> str:
    """fieldpath.PathElement rendering: [name="x"], [="v"] for sets, [i] otherwise."""
    kind = schemas.list_type(schema)
    keys = schemas.list_map_keys(schema)
    if kind == "map" and keys and isinstance(item, dict):
        parts = [f"{k}={_key_text(item[k])}" for k in keys if k in item]
        if parts:
            return "[" + ",".join(parts) + "]"
    if kind == "set" and not isinstance(item, dict | list):
        return f"[={_key_text(item)}]"
    return f"[{index}]"


def _go_sharp(value: Any) -> str:
    """Go's %#v of a decoded JSON value (what SMD prints in its type errors)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value) if isinstance(value, float) else str(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[]interface {}{" + ", ".join(_go_sharp(v) for v in value) + "}"
    if isinstance(value, dict):
        items = ", ".join(f"{json.dumps(str(k))}:{_go_sharp(v)}" for k, v in value.items())
        return "map[string]interface {}{" + items + "}"
    return "interface {}(nil)"


def _go_plain(value: Any) -> str:
    """Go's %v of a decoded JSON value."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "[" + " ".join(_go_plain(v) for v in value) + "]"
    if isinstance(value, dict):
        return "map[" + " ".join(f"{k}:{_go_plain(v)}" for k, v in sorted(value.items())) + "]"
    return str(value)


def smd_scalar(schema: dict[str, Any], types: set[str]) -> str:
    """The SMD scalar of a leaf schema: "numeric", "string", "boolean" or "untyped"."""
    # kubernetes/kube-openapi pkg/schemaconv/smd.go, convertPrimitive: integers and numbers are
    # numeric, strings are strings only with format "" or "byte" (date-time, int-or-string and
    # every other format are untyped), booleans boolean. ToSchemaFromOpenAPI hardcodes Quantity as
    # untyped too; the schemas here spell Quantity (string|number) and IntOrString
    # (string|integer) as a oneOf of scalar types, which is how both are recognised.
    if len(types) != 1:
        return "untyped"
    (kind,) = types
    if kind in ("integer", "number"):
        return "numeric"
    if kind == "string":
        return "string" if schema.get("format") in (None, "", "byte") else "untyped"
    if kind == "boolean":
        return "boolean"
    return "untyped"


def _type_error(path: str, schema: dict[str, Any], value: Any) -> str | None:
    """The typed-conversion complaint for a value of the wrong JSON type, or None."""
    # sigs.k8s.io/structured-merge-diff typed/validate.go validateScalar and typed/helpers.go
    # deduceAtom; a schema without a type accepts any value (schemaconv: untyped scalar, list
    # and map).
    types = schemas.schema_types(schema)
    if not types or value is None:
        return None
    where = path or "."
    if "object" in types or "array" in types:
        wanted = "map" if "object" in types else "list"
        fits = isinstance(value, dict) if wanted == "map" else isinstance(value, list)
        return None if fits else f"{where}: expected {wanted}, got &{{{_go_plain(value)}}}"
    scalar = smd_scalar(schema, types)
    if scalar == "numeric":
        # SMD has one numeric scalar type: ints and floats both fit integer fields.
        if isinstance(value, int | float) and not isinstance(value, bool):
            return None
        return f"{where}: expected numeric (int or float), got {type_name(value, 'go')}"
    if scalar == "string":
        if isinstance(value, str):
            return None
        return f"{where}: expected string, got &value.valueUnstructured{{Value:{_go_sharp(value)}}}"
    if scalar == "boolean":
        if isinstance(value, bool):
            return None
        return f"{where}: expected boolean, got &{{{_go_plain(value)}}}"
    if isinstance(value, dict | list):
        return f"{where}: expected any scalar, got &{{{_go_plain(value)}}}"
    return None


def _preserves_unknown(schema: dict[str, Any]) -> bool:
    return bool(schema.get("x-kubernetes-preserve-unknown-fields")) or (
        schemas.is_object_schema(schema)
        and "properties" not in schema
        and "additionalProperties" not in schema
    )


def check_typed(
    value: Any, schema: dict[str, Any] | None, path: str, version: str, errors: list[str]
) -> None:
    """ObjectToTyped for a patch: unknown fields and wrong types, collected as SMD reports them."""
    if schema is None or value is None:
        return
    problem = _type_error(path, schema, value)
    if problem:
        errors.append(problem)
        return
    if isinstance(value, dict) and schemas.is_object_schema(schema):
        if _preserves_unknown(schema):
            return
        properties = schema.get("properties")
        for key in sorted(value):
            child_path = f"{path}.{key}"
            declared = isinstance(properties, dict) and key in properties
            if declared or isinstance(schema.get("additionalProperties"), dict):
                child = schemas.child_schema(schema, key, version)
                check_typed(value[key], child, child_path, version, errors)
            else:
                errors.append(f"{child_path}: field not declared in schema")
    elif isinstance(value, list) and schemas.is_array_schema(schema):
        element = schemas.items_schema(schema, version)
        for index, item in enumerate(value):
            check_typed(item, element, path + _element_path(schema, item, index), version, errors)


def atomic_paths(value: Any, schema: dict[str, Any] | None, path: str, version: str) -> list[str]:
    """Paths in an apply configuration that set atomic lists, maps or structs (findAtomics)."""
    # As smd.go does, an atomic value is reported and still descended into, list elements are
    # named by index ("[0]"), and only declared struct fields are followed.
    if schema is None or value is None:
        return []
    found: list[str] = []
    if isinstance(value, dict) and schemas.is_object_schema(schema):
        if schemas.is_atomic(schema):
            found.append(path)
        properties = schema.get("properties")
        if isinstance(properties, dict):
            for key in sorted(value):
                if key in properties:
                    child = schemas.child_schema(schema, key, version)
                    found.extend(atomic_paths(value[key], child, f"{path}.{key}", version))
    elif isinstance(value, list) and schemas.is_array_schema(schema):
        if schemas.is_atomic(schema):
            found.append(path)
        element = schemas.items_schema(schema, version)
        for index, item in enumerate(value):
            found.extend(atomic_paths(item, element, f"{path}[{index}]", version))
    return found


# A PathElement of sigs.k8s.io/structured-merge-diff fieldpath: ("value", the JSON of a set
# item) or ("key", the (field, JSON value) pairs of a list-map item's keys).
PathElement = tuple[str, str] | tuple[str, tuple[tuple[str, str], ...]]


def _list_key(
    item: Any, schema: dict[str, Any], element: dict[str, Any] | None, path: str
) -> PathElement:
    """The PathElement identity of a list item: its key fields (map) or its value (set)."""
    if schemas.list_type(schema) == "set":
        return ("value", _key_text(item))
    keys = schemas.list_map_keys(schema)
    if not isinstance(item, dict):
        raise ApplyError(
            f"{path}: associative list with keys may only contain maps, got {type_name(item, 'apply')}"
        )
    parts: list[tuple[str, str]] = []
    for key in keys:
        if key in item:
            parts.append((key, _key_text(item[key])))
            continue
        default = (schemas.child_schema(element, key) or {}).get("default") if element else None
        if default is None:
            raise ApplyError(
                f'{path}: associative list with keys has an element that omits key field "{key}" '
                "(and doesn't have default value)"
            )
        parts.append((key, _key_text(default)))
    return ("key", tuple(parts))


def _index(
    items: list[Any],
    schema: dict[str, Any],
    element: dict[str, Any] | None,
    path: str,
    allow_duplicates: bool,
) -> tuple[list[PathElement], dict[PathElement, Any]]:
    """indexListPathElements: the ordered identities and identity -> item (None when duplicated)."""
    identities: list[PathElement] = []
    observed: dict[PathElement, Any] = {}
    for index, item in enumerate(items):
        identity = _list_key(item, schema, element, f"{path}{_element_path(schema, item, index)}")
        identities.append(identity)
        if identity in observed:
            if not allow_duplicates:
                raise ApplyError(
                    f"{path}: duplicate entries for key {_element_path(schema, item, index)}"
                )
            observed[identity] = None
        else:
            observed[identity] = item
    return identities, observed


def _merge_list(
    live: list[Any], patch: list[Any], schema: dict[str, Any], version: str, path: str
) -> list[Any]:
    """visitListItems of typed/merge.go: the ordering of merged list-map and set items."""
    element = schemas.items_schema(schema, version)
    lhs_ids, observed_lhs = _index(live, schema, element, path, True)
    rhs_ids, observed_rhs = _index(patch, schema, element, path, False)
    shared = [pe for pe in rhs_ids if pe in observed_lhs]
    next_shared = shared.pop(0) if shared else None
    merged_rhs: set[Any] = set()
    out: list[Any] = []

    def merge_item(lhs_item: Any, rhs_item: Any) -> Any:
        if lhs_item is None:
            return copy.deepcopy(rhs_item)
        if rhs_item is _ABSENT:
            return copy.deepcopy(lhs_item)
        return merge_values(lhs_item, rhs_item, element, version, path)

    li = ri = 0
    while li < len(lhs_ids) or ri < len(rhs_ids):
        if li < len(lhs_ids) and ri < len(rhs_ids):
            pe = lhs_ids[li]
            if pe == rhs_ids[ri]:
                merged_rhs.add(pe)
                out.append(merge_item(observed_lhs.get(pe), observed_rhs[pe]))
                li += 1
                ri += 1
                next_shared = shared.pop(0) if shared else None
                continue
            if pe in observed_rhs and next_shared is not None and next_shared != pe:
                li += 1
                continue
        if li < len(lhs_ids):
            pe = lhs_ids[li]
            if pe not in observed_rhs:
                out.append(copy.deepcopy(live[li]))
                li += 1
                continue
            if pe in merged_rhs:
                li += 1
                continue
        if ri < len(rhs_ids):
            pe = rhs_ids[ri]
            merged_rhs.add(pe)
            out.append(merge_item(observed_lhs.get(pe), observed_rhs[pe]))
            ri += 1
            if next_shared is not None and next_shared == pe:
                next_shared = shared.pop(0) if shared else None
    return out


def merge_values(
    live: Any, patch: Any, schema: dict[str, Any] | None, version: str, path: str = ""
) -> Any:
    """Merge `patch` over `live` keeping the patch's values (SMD ruleKeepRHS)."""
    if live is None or patch is None:
        return copy.deepcopy(patch if patch is not None else live)
    if isinstance(patch, dict) and isinstance(live, dict):
        if schema is not None and schemas.is_atomic(schema):
            return copy.deepcopy(patch)
        result = copy.deepcopy(live)
        for key, value in patch.items():
            child = schemas.child_schema(schema, key, version) if schema is not None else None
            result[key] = merge_values(live.get(key), value, child, version, f"{path}.{key}")
        return result
    if isinstance(patch, list) and isinstance(live, list):
        if schema is None or schemas.list_type(schema) in (None, "atomic"):
            return copy.deepcopy(patch)
        return _merge_list(live, patch, schema, version, path)
    return copy.deepcopy(patch)


def apply_configuration(
    live: dict[str, Any],
    patch: Any,
    *,
    k8s_version: str = DEFAULT_VERSION,
    schema: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Apply an ApplyConfiguration (the `Object{...}` value) to the live object."""
    # Raises ApplyError with the Kubernetes wording ("error applying patch: ..."). `schema`
    # overrides the built-in schema of the live object's kind (e.g. for a CRD); without any schema
    # the patch is merged as schemaless (maps merged, lists replaced).
    if not isinstance(patch, dict):
        raise ApplyError(
            f"error applying patch: apply configuration must be an object, got {type_name(patch, 'apply')}"
        )
    if not isinstance(live, dict):
        raise ApplyError("error applying patch: the object to mutate is not an object")
    builtin = schema is None
    if schema is None:
        group, _, ver = str(live.get("apiVersion") or "").rpartition("/")
        kind = str(live.get("kind") or "")
        builtin = not schemas.is_custom_kind(group, ver, kind, k8s_version)
        schema = schemas.schema_for(group, ver, kind, k8s_version)
    patch = copy.deepcopy(patch)
    # The API server converts the Object value with the GVK of the object being mutated.
    patch.pop("apiVersion", None)
    patch.pop("kind", None)
    if schema is not None:
        errors: list[str] = []
        check_typed(patch, schema, "", k8s_version, errors)
        if errors:
            raise ApplyError(
                "error applying patch: failed to convert patch object to typed object: "
                + _join_errors(errors)
            )
        atomic = atomic_paths(patch, schema, "", k8s_version)
        if atomic:
            raise ApplyError(
                "error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, "
                "maps or structs: " + ", ".join(atomic)
            )
    try:
        merged: dict[str, Any] = merge_values(live, patch, schema, k8s_version)
    except ApplyError as exc:
        raise ApplyError(f"error applying patch: failed to merge patch: {exc}") from None
    if builtin and schema is not None:
        # The dispatcher converts the merged object back to its Go type (ConvertToVersion):
        # quantities come out canonical; its errors are not wrapped in "error applying patch".
        # kubernetes/kubernetes staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/
        # mutating/dispatcher.go, dispatchOne.
        try:
            merged = canonicalize(merged, schema, k8s_version=k8s_version)
        except QuantityError as exc:
            raise ApplyError(str(exc)) from None
    return merged


def _join_errors(errors: list[str]) -> str:
    if len(errors) == 1:
        return errors[0]
    return "errors:\n  " + "\n  ".join(errors)
