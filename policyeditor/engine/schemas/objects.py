"""A custom resource checked against its CRD schema: pruning and OpenAPI validation, as stored.

kube-apiserver prunes unknown fields when it decodes a custom resource (kubernetes/kubernetes
staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning/algorithm.go, PruneWithOptions;
the strict field validation of handlers/fieldmanager reports them as `unknown field "spec.x"`) and
validates it against the schema before storing it (pkg/apiserver/validation/validation.go,
ValidateCustomResource, on kube-openapi's validate package, whose messages are kept here). Missing
fields get the schema's `default:` after pruning (pkg/apiserver/schema/defaulting/algorithm.go,
Default). The x-kubernetes-validations (CEL) rules run a layer up, in cel/crd_rule_evaluation.py.
"""

from __future__ import annotations

import copy
import functools
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import re2

from policyeditor.engine import apimachinery
from policyeditor.engine.errors import FieldError
from policyeditor.engine.schemas.layer import active

_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False


@functools.lru_cache(maxsize=256)
def compile_pattern(pattern: str) -> Any:
    """A schema `pattern` compiled with RE2 (Go's regexp semantics, linear time), or None."""
    try:
        return re2.compile(pattern, _RE2_OPTIONS)
    except re2.error:
        return None


_TYPE_NAMES = {bool: "boolean", int: "integer", float: "number", str: "string"}
_META_KEYS = ("apiVersion", "kind", "metadata")


@dataclass
class CustomObjectCheck:
    """The pruned object, the API server's warnings for pruned fields and its field errors."""

    object: Any
    warnings: list[str] = field(default_factory=list)
    errors: list[FieldError] = field(default_factory=list)

    def message(self, kind: str, group: str, name: str) -> str:
        """The 422 message: `Kind.group "name" is invalid: [errors]` (one error: no brackets)."""
        shown = ", ".join(str(e) for e in self.errors)
        if len(self.errors) > 1:
            shown = f"[{shown}]"
        return f'{kind}.{group} "{name}" is invalid: {shown}'


def _json_type(value: Any) -> str:
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    if value is None:
        return "null"
    return _TYPE_NAMES.get(type(value), "string")


def _fits(kind: str, value: Any) -> bool:
    if kind == "object":
        return isinstance(value, dict)
    if kind == "array":
        return isinstance(value, list)
    if kind == "string":
        return isinstance(value, str)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "integer":
        return (isinstance(value, int) and not isinstance(value, bool)) or (
            isinstance(value, float) and value.is_integer()
        )
    if kind == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    return True


def _format_ok(fmt: str, value: str) -> bool:
    if fmt == "date-time":
        try:
            datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return False
        return "T" in value or "t" in value
    if fmt == "int32":
        return True
    return True


def _properties(schema: dict[str, Any]) -> dict[str, Any]:
    raw = schema.get("properties")
    return raw if isinstance(raw, dict) else {}


def _in_body(path: str) -> str:
    return f"{path} in body"


def _prune(value: Any, schema: dict[str, Any], path: str, pruned: list[str], root: bool) -> Any:
    """Drop fields the schema does not declare (unless it preserves unknown fields)."""
    if isinstance(value, dict) and isinstance(schema, dict):
        if schema.get("x-kubernetes-preserve-unknown-fields") and not (
            root or schema.get("x-kubernetes-embedded-resource")
        ):
            return value
        properties = _properties(schema)
        additional = schema.get("additionalProperties")
        out: dict[str, Any] = {}
        for key, item in value.items():
            child_path = f"{path}.{key}" if path else key
            if (root or schema.get("x-kubernetes-embedded-resource")) and key in _META_KEYS:
                out[key] = item  # ObjectMeta and TypeMeta are the API machinery's, never pruned
                continue
            if key in properties:
                out[key] = _prune(item, properties[key], child_path, pruned, False)
            elif isinstance(additional, dict):
                out[key] = _prune(item, additional, child_path, pruned, False)
            elif additional is True or schema.get("x-kubernetes-preserve-unknown-fields"):
                out[key] = item
            else:
                pruned.append(child_path)
        return out
    if (
        isinstance(value, list)
        and isinstance(schema, dict)
        and isinstance(schema.get("items"), dict)
    ):
        return [
            _prune(item, schema["items"], f"{path}[{i}]", pruned, False)
            for i, item in enumerate(value)
        ]
    return value


def _non_nullable_null(value: Any, schema: Any) -> bool:
    return value is None and isinstance(schema, dict) and not schema.get("nullable")


def _default(value: Any, schema: Any) -> None:
    """Fill in missing fields from `default:` (apiextensions-apiserver schema/defaulting/algorithm.go,
    Default): on objects present, properties absent or null where not nullable, then below."""
    if not isinstance(schema, dict):
        return
    if isinstance(value, dict):
        properties = _properties(schema)
        for key, prop in properties.items():
            if not isinstance(prop, dict) or "default" not in prop or prop["default"] is None:
                continue
            if key not in value or _non_nullable_null(value[key], prop):
                value[key] = copy.deepcopy(prop["default"])
        additional = schema.get("additionalProperties")
        for key, item in value.items():
            if key in properties:
                _default(item, properties[key])
            elif isinstance(additional, dict):
                _default(item, additional)
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        items = schema["items"]
        for index, item in enumerate(value):
            if _non_nullable_null(item, items) and items.get("default") is not None:
                value[index] = copy.deepcopy(items["default"])
            _default(value[index], items)


def _validate(value: Any, schema: dict[str, Any], path: str, errors: list[FieldError]) -> None:
    if not isinstance(schema, dict) or "$ref" in schema:
        return
    if value is None:
        if not schema.get("nullable") and schema.get("type"):
            errors.append(
                apimachinery.invalid(
                    path, None, f'{_in_body(path)} must be of type {schema["type"]}: "null"'
                )
            )
        return
    kind = schema.get("type") if isinstance(schema.get("type"), str) else ""
    if schema.get("x-kubernetes-int-or-string"):
        if not isinstance(value, str) and not _fits("integer", value):
            errors.append(
                apimachinery.invalid(
                    path,
                    value,
                    f'{_in_body(path)} must be of type integer or string: "{_json_type(value)}"',
                )
            )
        return
    if kind and not _fits(kind, value):
        errors.append(
            apimachinery.invalid(
                path, value, f'{_in_body(path)} must be of type {kind}: "{_json_type(value)}"'
            )
        )
        return
    enum = schema.get("enum")
    if isinstance(enum, list) and value not in enum:
        errors.append(
            apimachinery.not_supported(
                path, value, [e if isinstance(e, str) else str(e) for e in enum]
            )
        )
    if isinstance(value, str):
        fmt = schema.get("format")
        if isinstance(fmt, str) and not _format_ok(fmt, value):
            errors.append(
                apimachinery.invalid(
                    path, value, f'{_in_body(path)} must be of type {fmt}: "{value}"'
                )
            )
        pattern = schema.get("pattern")
        compiled = compile_pattern(pattern) if isinstance(pattern, str) else None
        if compiled is not None and compiled.search(value) is None:
            errors.append(
                apimachinery.invalid(path, value, f"{_in_body(path)} should match '{pattern}'")
            )
        max_length = schema.get("maxLength")
        if isinstance(max_length, int) and len(value) > max_length:
            errors.append(apimachinery.too_long(path, max_length))
        min_length = schema.get("minLength")
        if isinstance(min_length, int) and len(value) < min_length:
            errors.append(
                apimachinery.invalid(
                    path,
                    value,
                    f"{_in_body(path)} should be at least {min_length} chars long",
                )
            )
    if isinstance(value, int | float) and not isinstance(value, bool):
        minimum, maximum = schema.get("minimum"), schema.get("maximum")
        if isinstance(minimum, int | float) and value < minimum:
            errors.append(
                apimachinery.invalid(
                    path, value, f"{_in_body(path)} should be greater than or equal to {minimum}"
                )
            )
        if isinstance(maximum, int | float) and value > maximum:
            errors.append(
                apimachinery.invalid(
                    path, value, f"{_in_body(path)} should be less than or equal to {maximum}"
                )
            )
    if isinstance(value, dict):
        required = schema.get("required")
        for name in required if isinstance(required, list) else []:
            if isinstance(name, str) and name not in value:
                errors.append(apimachinery.required(f"{path}.{name}" if path else name))
        properties = _properties(schema)
        additional = schema.get("additionalProperties")
        for key, item in value.items():
            child_path = f"{path}.{key}" if path else key
            if key in properties:
                _validate(item, properties[key], child_path, errors)
            elif isinstance(additional, dict):
                _validate(item, additional, child_path, errors)
    elif isinstance(value, list):
        min_items, max_items = schema.get("minItems"), schema.get("maxItems")
        if isinstance(max_items, int) and len(value) > max_items:
            errors.append(apimachinery.too_many(path, len(value), max_items))
        if isinstance(min_items, int) and len(value) < min_items:
            errors.append(
                apimachinery.invalid(
                    path, value, f"{_in_body(path)} should have at least {min_items} items"
                )
            )
        items = schema.get("items")
        if isinstance(items, dict):
            for position, item in enumerate(value):
                _validate(item, items, f"{path}[{position}]", errors)
        _check_list_keys(value, schema, path, errors)


def _check_list_keys(
    value: list[Any], schema: dict[str, Any], path: str, errors: list[FieldError]
) -> None:
    """Duplicate items of set and map lists (apiextensions listtype.ValidateListSetsAndMaps)."""
    list_type = schema.get("x-kubernetes-list-type")
    if list_type == "set":
        seen: list[Any] = []
        for position, item in enumerate(value):
            if item in seen:
                errors.append(apimachinery.duplicate(f"{path}[{position}]", item))
            seen.append(item)
    elif list_type == "map":
        keys = schema.get("x-kubernetes-list-map-keys") or []
        found: list[tuple[Any, ...]] = []
        for position, item in enumerate(value):
            if not isinstance(item, dict):
                continue
            identity = tuple(item.get(k) for k in keys)
            if identity in found:
                errors.append(
                    apimachinery.duplicate(f"{path}[{position}]", {k: item.get(k) for k in keys})
                )
            found.append(identity)


def check_custom_object(obj: Any, k8s_version: str = "") -> CustomObjectCheck | None:
    """Prune and validate a custom resource against the CRD in force; None if not a CR."""
    del k8s_version  # the CRD, not the Kubernetes version, decides
    layer = active()
    if layer is None or not isinstance(obj, dict):
        return None
    group, _, version = str(obj.get("apiVersion") or "").rpartition("/")
    schema = layer.schema_for(group, version, str(obj.get("kind") or ""))
    if schema is None:
        return None
    pruned: list[str] = []
    result = _prune(copy.deepcopy(obj), schema, "", pruned, True)
    # Defaulting follows pruning on decode (customresource_handler.go, schemaCoercingConverter).
    _default(
        result,
        {
            **schema,
            "properties": {k: v for k, v in _properties(schema).items() if k not in _META_KEYS},
        },
    )
    check = CustomObjectCheck(result, [f'unknown field "{path}"' for path in pruned])
    body = {k: v for k, v in result.items() if k not in _META_KEYS}
    body_schema = dict(schema)
    body_schema["required"] = [
        r for r in schema.get("required") or [] if isinstance(r, str) and r not in _META_KEYS
    ]
    _validate(body, body_schema, "", check.errors)
    return check
