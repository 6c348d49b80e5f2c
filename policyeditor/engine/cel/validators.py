"""Checks cel-go runs after type checking that cel-expr-python does not.

Kubernetes turns them on from 1.29 (kubernetes/kubernetes staging/src/k8s.io/apiserver/pkg/cel/
environment/base.go, baseOptsWithoutStrictCost: cel.ASTValidators); they are google/cel-go
cel/validator.go, ValidateDurationLiterals, ValidateTimestampLiterals, ValidateRegexLiterals and
ValidateHomogeneousAggregateLiterals.
"""

from __future__ import annotations

from typing import Any

from policyeditor.engine.cel import literals
from policyeditor.engine.cel.features import FORBIDDEN_FUNCTIONS
from policyeditor.engine.cel.runtime.functions import JSONPATCH_FN, OBJECT_FN
from policyeditor.engine.cel.syntax.walk import node_type, walk

# (node id, message) pairs; the caller maps ids to positions.
Finding = tuple[int, str]


def _const(expr: Any) -> tuple[str, Any] | None:
    if expr.WhichOneof("expr_kind") != "const_expr":
        return None
    kind = expr.const_expr.WhichOneof("constant_kind")
    return kind, getattr(expr.const_expr, kind) if kind else None


def _unwrap_optional(type_text: str) -> str:
    if type_text.startswith("optional_type(") and type_text.endswith(")"):
        return type_text[len("optional_type(") : -1]
    return type_text


def _assignable(first: str, other: str) -> bool:
    return first == other or "dyn" in (first, other) or first == "*error*" or other == "*error*"


def _homogeneous(checked: Any, node: Any, skip_maps: set[int]) -> list[Finding]:
    kind = node.WhichOneof("expr_kind")
    findings: list[Finding] = []
    if kind == "list_expr":
        optional = set(node.list_expr.optional_indices)
        first = None
        for index, element in enumerate(node.list_expr.elements):
            t = node_type(checked, element)
            if index in optional:
                t = _unwrap_optional(t)
            if first is None:
                first = t
            elif not _assignable(first, t):
                findings.append((element.id, f"expected type '{first}' but found '{t}'"))
                break
            elif t == "dyn":
                first = "dyn"  # cel-go joins to the most general type seen so far
    elif kind == "struct_expr" and not node.struct_expr.message_name and node.id not in skip_maps:
        first_key = first_value = None
        for entry in node.struct_expr.entries:
            kt = node_type(checked, entry.map_key)
            vt = node_type(checked, entry.value)
            if entry.optional_entry:
                vt = _unwrap_optional(vt)
            if first_key is None or first_value is None:
                first_key, first_value = kt, vt
                continue
            if not _assignable(first_key, kt):
                findings.append((entry.map_key.id, f"expected type '{first_key}' but found '{kt}'"))
                break
            if not _assignable(first_value, vt):
                findings.append((entry.value.id, f"expected type '{first_value}' but found '{vt}'"))
                break
            first_key = "dyn" if kt == "dyn" else first_key
            first_value = "dyn" if vt == "dyn" else first_value
    return findings


def _literal(node: Any) -> list[Finding]:
    call = node.call_expr
    name = call.function
    has_target = call.HasField("target")
    if name == "duration" and not has_target and len(call.args) == 1:
        const = _const(call.args[0])
        if const and const[0] == "string_value" and not literals.valid_duration(const[1]):
            return [(call.args[0].id, "invalid duration argument")]
    elif name == "timestamp" and not has_target and len(call.args) == 1:
        const = _const(call.args[0])
        if const and const[0] == "string_value" and not literals.valid_timestamp_string(const[1]):
            return [(call.args[0].id, "invalid timestamp argument")]
        if const and const[0] == "int64_value" and not literals.valid_timestamp_int(const[1]):
            return [(call.args[0].id, "invalid timestamp argument")]
    elif name == "matches":
        args = list(call.args)
        pattern = args[0] if has_target and len(args) == 1 else args[1] if len(args) == 2 else None
        const = _const(pattern) if pattern is not None else None
        if (
            pattern is not None
            and const
            and const[0] == "string_value"
            and literals.regex_error(const[1])
        ):
            return [(pattern.id, "invalid matches argument")]
    return []


def validate(checked: Any) -> list[Finding]:
    """Homogeneous aggregate literals, literal arguments and functions Kubernetes lacks."""
    findings: list[Finding] = []
    skip_maps: set[int] = set()
    skip_literals: set[int] = set()
    for node in walk(checked.expr):
        kind = node.WhichOneof("expr_kind")
        if kind == "call_expr":
            function = node.call_expr.function
            if function in (OBJECT_FN, JSONPATCH_FN):
                # The field maps of constructions are heterogeneous by nature.
                skip_maps.update(arg.id for arg in node.call_expr.args)
            elif function == "format":
                # cel-go exempts every literal inside a string format call (mixed argument lists).
                skip_literals.update(n.id for n in walk(node) if n is not node)
            elif function in FORBIDDEN_FUNCTIONS:
                findings.append((node.id, f"undeclared reference to '{function}'"))
            else:
                findings.extend(_literal(node))
        elif kind in ("list_expr", "struct_expr") and node.id not in skip_literals:
            findings.extend(_homogeneous(checked, node, skip_maps))
    return findings
