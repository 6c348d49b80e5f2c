"""Strict decoding of a patched object back into its built-in type, as the MAP JSONPatch path does.

kube-apiserver decodes the patched JSON into the Go type with sigs.k8s.io/json strict mode: unknown
fields are reported with their full path, wrong JSON types fail, and JSON nulls become zero values
(which the object's JSON form then omits). Kinds without a built-in schema (CRDs) stay unstructured.
"""

from __future__ import annotations

import re
from typing import Any

from policyeditor.engine import schemas
from policyeditor.engine.admission.mutating.patch.quantities import QuantityError, canonicalize
from policyeditor.engine.jsonkinds import type_name
from policyeditor.engine.versions import DEFAULT_VERSION

_INDEX = re.compile(r"\[\d+\]")
_GO_TYPES = {"integer": "int64", "number": "float64", "string": "string", "boolean": "bool"}


class DecodeError(Exception):
    """The patched JSON does not decode into the typed object; str() is the Kubernetes text."""


def _fits(value: Any, schema: dict[str, Any]) -> bool:
    types = schemas.schema_types(schema)
    if not types:
        return True
    if isinstance(value, bool):
        return "boolean" in types
    if isinstance(value, int):
        return bool(types & {"integer", "number"})
    if isinstance(value, float):
        return "number" in types or ("integer" in types and value.is_integer())
    if isinstance(value, str):
        return "string" in types
    if isinstance(value, list):
        return "array" in types
    if isinstance(value, dict):
        return "object" in types
    return False


def _ref_type(raw: dict[str, Any] | None) -> str | None:
    """ "v1.PodSpec" for a schema that is a $ref to io.k8s.api.core.v1.PodSpec."""
    ref = raw.get("$ref") if isinstance(raw, dict) else None
    if not isinstance(ref, str):
        return None
    name = ref.rsplit("/", 1)[-1]
    parts = name.split(".")
    return f"{parts[-2]}.{parts[-1]}" if len(parts) >= 2 else name


def _go_type(schema: dict[str, Any], raw: dict[str, Any] | None) -> str:
    """The Go type json.Unmarshal names in a type error (approximated from the schema)."""
    named = _ref_type(raw)
    if named:
        return named
    fmt = schema.get("format")
    if isinstance(fmt, str) and fmt in ("int32", "int64", "double", "float"):
        return {"double": "float64", "float": "float32"}.get(fmt, fmt)
    types = schemas.schema_types(schema)
    if "array" in types:
        element = _ref_type(schema.get("items")) if isinstance(schema.get("items"), dict) else None
        return "[]" + (element or "string")
    if "object" in types:
        return "map[string]string"
    for name in ("integer", "number", "string", "boolean"):
        if name in types:
            return _GO_TYPES[name]
    return "interface {}"


def _decode(
    value: Any,
    schema: dict[str, Any] | None,
    path: str,
    version: str,
    unknown: list[str],
    struct: str,
    raw: dict[str, Any] | None = None,
) -> Any:
    if schema is None:
        return value
    if value is None:
        return None
    if not _fits(value, schema):
        # encoding/json: Struct is the enclosing Go struct, Field the JSON path from the root
        # (field names only; the strict unknown-field paths below keep the list indices).
        field = _INDEX.sub("", path) or "."
        raise DecodeError(
            f"json: cannot unmarshal {type_name(value, 'unmarshal')} into Go struct field "
            f"{struct}.{field} of type {_go_type(schema, raw)}"
        )
    if isinstance(value, dict) and schemas.is_object_schema(schema):
        if schema.get("x-kubernetes-preserve-unknown-fields"):
            return value
        properties = schema.get("properties")
        additional = schema.get("additionalProperties")
        if not isinstance(properties, dict) and not isinstance(additional, dict):
            return value  # RawExtension-like: any JSON object
        here = (
            (_ref_type(raw) or struct).rsplit(".", 1)[-1]
            if isinstance(properties, dict)
            else struct
        )
        out: dict[str, Any] = {}
        for key, item in value.items():
            child_path = f"{path}.{key}" if path else key
            child = schemas.child_schema(schema, key, version)
            if isinstance(properties, dict) and key in properties:
                decoded = _decode(item, child, child_path, version, unknown, here, properties[key])
                if decoded is not None:
                    out[key] = decoded
            elif isinstance(additional, dict):
                out[key] = _decode(item, child, child_path, version, unknown, here, additional)
            else:
                unknown.append(child_path)
        return out
    if isinstance(value, list) and schemas.is_array_schema(schema):
        element = schemas.items_schema(schema, version)
        raw_items = schema.get("items") if isinstance(schema.get("items"), dict) else None
        return [
            _decode(item, element, f"{path}[{index}]", version, unknown, struct, raw_items)
            for index, item in enumerate(value)
        ]
    return value


def strict_decode(obj: Any, *, k8s_version: str = DEFAULT_VERSION) -> Any:
    """Decode a patched object against its kind's schema; raises DecodeError like the API server."""
    # Returns the object as the typed round trip leaves it (null fields dropped). Objects of kinds
    # the schemas do not know are returned unchanged.
    if not isinstance(obj, dict):
        raise DecodeError(
            f"json: cannot unmarshal {type_name(obj, 'unmarshal')} into Go value of type object"
        )
    group, _, version = str(obj.get("apiVersion") or "").rpartition("/")
    kind = str(obj.get("kind") or "")
    if schemas.is_custom_kind(group, version, kind, k8s_version):
        return obj  # custom resources stay unstructured: the CRD handler decodes them later
    schema = schemas.schema_for(group, version, kind, k8s_version)
    if schema is None:
        return obj
    unknown: list[str] = []
    decoded = _decode(obj, schema, "", k8s_version, unknown, str(obj.get("kind") or ""))
    try:
        # Quantity.UnmarshalJSON parses each quantity (its error ends decoding at once, before
        # the strict unknown-field check); re-encoding writes the canonical form.
        decoded = canonicalize(decoded, schema, k8s_version=k8s_version)
    except QuantityError as exc:
        raise DecodeError(str(exc)) from None
    if unknown:
        raise DecodeError(
            "strict decoding error: " + ", ".join(f'unknown field "{path}"' for path in unknown)
        )
    return decoded
