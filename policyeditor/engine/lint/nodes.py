"""Small questions about parsed cel.expr nodes: kinds, field paths, constants, parents."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from policyeditor.engine.cel.syntax.walk import children

# The Kubernetes maps whose keys are often not CEL identifiers (ObjectMeta labels and
# annotations, ConfigMap data, nodeSelector, label selectors).
MAP_FIELDS = frozenset(
    {"labels", "annotations", "data", "binaryData", "nodeSelector", "matchLabels"}
)
INDEX = "_[_]"
OPTIONAL_SELECT = "_?._"
OPTIONAL_INDEX = "_[?_]"


def kind(expr: Any) -> str:
    """The expr_kind of a node ("select_expr", "call_expr", ...)."""
    return str(expr.WhichOneof("expr_kind") or "")


def const_string(expr: Any) -> str | None:
    """The value of a string literal, None for anything else."""
    if kind(expr) == "const_expr" and expr.const_expr.WhichOneof("constant_kind") == "string_value":
        return str(expr.const_expr.string_value)
    return None


def const_kind(expr: Any) -> str | None:
    """The literal's constant kind ("int64_value", "null_value", ...), None if no literal."""
    if kind(expr) != "const_expr":
        return None
    return str(expr.const_expr.WhichOneof("constant_kind"))


def call(expr: Any, *functions: str) -> bool:
    """True when expr calls one of functions (any function when none are named)."""
    return kind(expr) == "call_expr" and (not functions or expr.call_expr.function in functions)


def path_of(expr: Any) -> list[str] | None:
    """["object", "spec", "replicas"] for a chain of selections, string indexes and `.?` on an
    identifier; None for anything else."""
    parts: list[str] = []
    node = expr
    while True:
        node_kind = kind(node)
        if node_kind == "select_expr":
            parts.append(str(node.select_expr.field))
            node = node.select_expr.operand
        elif node_kind == "ident_expr":
            parts.append(str(node.ident_expr.name))
            return parts[::-1]
        elif call(node, INDEX, OPTIONAL_SELECT, OPTIONAL_INDEX) and len(node.call_expr.args) == 2:
            key = const_string(node.call_expr.args[1])
            if key is None:
                return None
            parts.append(key)
            node = node.call_expr.args[0]
        else:
            return None


def parents(nodes: Sequence[Any]) -> dict[int, Any]:
    """Node id -> its parent node, for an expression's nodes."""
    found: dict[int, Any] = {}
    for node in nodes:
        for child in children(node):
            found[child.id] = node
    return found


def presence_tests(nodes: Sequence[Any]) -> list[list[str]]:
    """The paths every has() in the expression tests, e.g. ["object", "spec", "replicas"]."""
    found = []
    for node in nodes:
        if kind(node) == "select_expr" and node.select_expr.test_only:
            path = path_of(node)
            if path is not None:
                found.append(path)
    return found


def uses_optionals(nodes: Sequence[Any]) -> bool:
    """True when the expression reads with `.?`, `[?` or optional helpers (orValue, hasValue)."""
    return any(
        call(node, OPTIONAL_SELECT, OPTIONAL_INDEX, "orValue", "hasValue", "optMap", "value")
        for node in nodes
    )


def null_compared(nodes: Sequence[Any], name: str) -> bool:
    """True when the expression compares the variable `name` with null (a guard)."""
    for node in nodes:
        if call(node, "_==_", "_!=_") and len(node.call_expr.args) == 2:
            left, right = node.call_expr.args
            for one, other in ((left, right), (right, left)):
                if path_of(one) == [name] and const_kind(other) == "null_value":
                    return True
    return False


def reads_operation(nodes: Sequence[Any]) -> bool:
    """True when the expression looks at request.operation (a guard by operation)."""
    return any(path_of(node) == ["request", "operation"] for node in nodes)


def first_ident(nodes: Sequence[Any], name: str) -> Any | None:
    """The first identifier node called name, in source order of the walk."""
    for node in nodes:
        if kind(node) == "ident_expr" and node.ident_expr.name == name:
            return node
    return None


def dotted(path: list[str]) -> str:
    """A path as CEL source: identifiers joined by dots, other keys as ['key']."""
    text = path[0]
    for part in path[1:]:
        text += f".{part}" if part.isidentifier() else f"[{part!r}]"
    return text
