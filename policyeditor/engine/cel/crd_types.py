"""The types of a CRD validation rule's `self` and `oldSelf`, from the schema node it sits on.

kube-apiserver declares `self` and `oldSelf` with the CEL type of the node's structural schema
(apiextensions-apiserver pkg/apiserver/schema/cel/compilation.go, Compile; k8s.io/apiserver
pkg/cel/common/schemas.go, SchemaDeclType), so a rule reading an undefined field or comparing
values of different types does not compile, and binds values converted by that schema
(k8s.io/apiserver pkg/cel/common/values.go, UnstructuredToVal): `date-time` and `date` strings
are timestamps, `duration` strings durations, `byte` strings bytes, `number` values doubles.
"""

from __future__ import annotations

import base64
import binascii
import functools
import re
from typing import Any

from google.protobuf import duration_pb2, timestamp_pb2

from policyeditor.engine.cel.issues import CelIssue
from policyeditor.engine.cel.literals import (
    MAX_UNIX,
    MIN_UNIX,
    go_duration_nanos,
    timestamp_seconds,
)
from policyeditor.engine.cel.model import Context, EnvType
from policyeditor.engine.cel.schema_check import check_roots, plain_schemas, result_type
from policyeditor.engine.cel.syntax.lexer import RESERVED_WORDS

_ESCAPES = {"__": "__underscores__", ".": "__dot__", "-": "__dash__", "/": "__slash__"}
_ESCAPABLE = re.compile(r"[A-Za-z_.\-/][A-Za-z0-9_.\-/]*\Z")
_EXPAND = re.compile(r"__|[-./]")
_FULL_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})\Z")
_FRACTION = re.compile(r"T\d{2}:\d{2}:\d{2}\.(\d+)", re.IGNORECASE)
_STRING = {"type": "string"}
_FORMATS = ("byte", "duration", "date", "date-time")


@functools.lru_cache(maxsize=4096)
def escape(name: str) -> str | None:
    """The CEL identifier of a property name, or None when CEL cannot name it.

    k8s.io/apiserver pkg/cel/escaping.go, Escape.
    """
    if name in RESERVED_WORDS:
        return f"__{name}__"
    if not _ESCAPABLE.match(name):
        return None
    return _EXPAND.sub(lambda match: _ESCAPES[match.group(0)], name)


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def with_type_and_object_meta(schema: dict[str, Any]) -> dict[str, Any]:
    """WithTypeAndObjectMeta: kind, apiVersion and metadata.name/generateName always readable."""
    properties = _mapping(schema.get("properties"))
    meta = _mapping(properties.get("metadata"))
    meta_properties = _mapping(meta.get("properties"))

    def is_type(node: Any, kind: str) -> bool:
        return isinstance(node, dict) and (
            node.get("type") == kind
            or (isinstance(node.get("type"), list) and kind in node["type"])
        )

    if (
        is_type(properties.get("kind"), "string")
        and is_type(properties.get("apiVersion"), "string")
        and is_type(meta, "object")
        and is_type(meta_properties.get("name"), "string")
        and is_type(meta_properties.get("generateName"), "string")
    ):
        return schema
    result = dict(schema)
    result["properties"] = {
        **properties,
        "kind": _STRING,
        "apiVersion": _STRING,
        "metadata": {"type": "object", "properties": {"name": _STRING, "generateName": _STRING}},
    }
    return result


def embedded(schema: Any) -> bool:
    """The schema is the root of an embedded resource (x-kubernetes-embedded-resource)."""
    return isinstance(schema, dict) and schema.get("x-kubernetes-embedded-resource") is True


def decl_schema(schema: Any, resource_root: bool) -> dict[str, Any] | None:
    """What CEL sees of a schema node (SchemaDeclType), as a schema; None when not exposed.

    Objects are closed (only their properties, under their escaped names) unless they are maps
    (additionalProperties); int-or-string is open (dyn).
    """
    if not isinstance(schema, dict):
        return None
    if schema.get("x-kubernetes-int-or-string") is True:
        return {"x-kubernetes-int-or-string": True}
    if resource_root:
        schema = with_type_and_object_meta(schema)
    kind = schema.get("type")
    if kind == "array":
        items = schema.get("items")
        inner = decl_schema(items, embedded(items))
        return None if inner is None else {"type": "array", "items": inner}
    if kind == "object":
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict):
            inner = decl_schema(extra, embedded(extra))
            return None if inner is None else {"type": "object", "additionalProperties": inner}
        properties = _mapping(schema.get("properties"))
        fields = {}
        for name, child in properties.items():
            declared = decl_schema(child, embedded(child))
            cel_name = escape(name)
            if declared is not None and cel_name is not None:
                fields[cel_name] = declared
        return {"type": "object", "properties": fields}
    if kind == "string":
        fmt = schema.get("format")
        return {"type": "string", "format": fmt} if fmt in _FORMATS else _STRING
    if kind in ("boolean", "number", "integer"):
        return {"type": kind}
    return None


def rule_type_issues(
    expression: str, schema: Any, resource_root: bool, context: Context
) -> list[CelIssue]:
    """What a typed `self`/`oldSelf` finds wrong in a rule or messageExpression that compiles."""
    declared = decl_schema(schema, resource_root)
    if declared is None:
        return []
    # With optionalOldSelf, oldSelf is an optional of the type: only `self` is checked here.
    old = None if context == Context.CRD_RULE_OPTIONAL_OLD_SELF else declared
    return check_roots(
        expression,
        {"self": declared, "oldSelf": old},
        context=context,
        env_type=EnvType.NEW_EXPRESSIONS,
        lookups=plain_schemas(),
    )


def rule_result_type(expression: str, schema: Any, resource_root: bool, context: Context) -> str:
    """The CEL type of a rule's result with `self` typed ("" when not known)."""
    declared = decl_schema(schema, resource_root)
    if declared is None:
        return ""
    old = None if context == Context.CRD_RULE_OPTIONAL_OLD_SELF else declared
    found = result_type(
        expression,
        {"self": declared, "oldSelf": old},
        context=context,
        env_type=EnvType.NEW_EXPRESSIONS,
        lookups=plain_schemas(),
    )
    return found or ""


def _timestamp(text: str, fmt: str) -> Any:
    if fmt == "date":
        seconds = timestamp_seconds(f"{text}T00:00:00Z") if _FULL_DATE.match(text) else None
        fraction = None
    else:
        seconds = timestamp_seconds(text)
        fraction = _FRACTION.search(text)
    if seconds is None or not MIN_UNIX <= seconds <= MAX_UNIX:
        return text
    nanos = int((fraction.group(1) + "0" * 9)[:9]) if fraction else 0
    return timestamp_pb2.Timestamp(seconds=seconds, nanos=nanos)


def _duration(text: str) -> Any:
    total = go_duration_nanos(text)
    if total is None:
        return text
    sign = -1 if total < 0 else 1
    seconds, nanos = divmod(abs(total), 10**9)
    return duration_pb2.Duration(seconds=sign * seconds, nanos=sign * nanos)


def _string_value(text: str, fmt: Any) -> Any:
    """A string of a formatted schema as UnstructuredToVal binds it (kept when it does not parse)."""
    if fmt in ("date-time", "date"):
        return _timestamp(text, fmt)
    if fmt == "duration":
        return _duration(text)
    if fmt == "byte":
        try:
            return base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError):
            return text
    return text


class _Plan:
    """What typing changes below one schema node (computed once per node)."""

    __slots__ = ("fmt", "items", "extra", "children", "renames")

    def __init__(self, schema: dict[str, Any]) -> None:
        kind = schema.get("type")
        self.fmt = (
            schema.get("format") if kind == "string" else ("number" if kind == "number" else None)
        )
        self.items = _plan(schema.get("items")) is not None if kind == "array" else False
        properties = _mapping(schema.get("properties"))
        extra = schema.get("additionalProperties")
        self.extra = not properties and _plan(extra) is not None
        self.children = [k for k, c in properties.items() if _plan(c) is not None]
        self.renames = {k: escape(k) for k in properties if escape(k) not in (k, None)}

    def changes(self) -> bool:
        return bool(
            self.fmt in (*_FORMATS, "number")
            or self.items
            or self.extra
            or self.children
            or self.renames
        )


# Schema node (by id, kept alive beside its plan) -> its plan, None when typing changes nothing.
_PLANS: dict[int, tuple[Any, _Plan | None]] = {}
_PLANS_SIZE = 8192


def _plan(schema: Any) -> _Plan | None:
    if not isinstance(schema, dict) or schema.get("x-kubernetes-int-or-string") is True:
        return None
    known = _PLANS.get(id(schema))
    if known is not None and known[0] is schema:
        return known[1]
    plan: _Plan | None = _Plan(schema)
    if plan is not None and not plan.changes():
        plan = None
    if len(_PLANS) >= _PLANS_SIZE:
        _PLANS.clear()
    _PLANS[id(schema)] = (schema, plan)
    return plan


def typed_value(value: Any, schema: Any) -> Any:
    """value as a typed `self` holds it: formatted strings converted, properties by CEL name.

    Only the paths typing changes are copied; the rest is the given value itself.
    """
    plan = _plan(schema)
    if plan is None:
        return value
    if plan.fmt == "number":
        return float(value) if isinstance(value, int) and not isinstance(value, bool) else value
    if plan.fmt is not None:
        return _string_value(value, plan.fmt) if isinstance(value, str) else value
    if isinstance(value, list):
        if not plan.items:
            return value
        return [typed_value(item, schema["items"]) for item in value]
    if not isinstance(value, dict):
        return value
    if plan.extra:
        extra = schema["additionalProperties"]
        return {k: typed_value(v, extra) for k, v in value.items()}
    present = [k for k in plan.children if k in value]
    renamed = [k for k in plan.renames if k in value]
    if not present and not renamed:
        return value
    typed = dict(value)
    properties = schema["properties"]
    for key in present:
        typed[key] = typed_value(value[key], properties[key])
    for key in renamed:
        # read by its CEL name (escaping.go, Escape): `namespace` is `__namespace__`
        typed[plan.renames[key]] = typed.pop(key)
    return typed
