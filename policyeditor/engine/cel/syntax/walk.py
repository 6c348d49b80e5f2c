"""Walking cel.expr ASTs and naming their types as cel-go prints them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

_PRIMITIVES = {1: "bool", 2: "int", 3: "uint", 4: "double", 5: "string", 6: "bytes"}
_WELL_KNOWN = {1: "any", 2: "google.protobuf.Timestamp", 3: "google.protobuf.Duration"}


def children(expr: Any) -> Iterator[Any]:
    """The direct sub-expressions of expr."""
    kind = expr.WhichOneof("expr_kind")
    if kind == "select_expr":
        yield expr.select_expr.operand
    elif kind == "call_expr":
        if expr.call_expr.HasField("target"):
            yield expr.call_expr.target
        yield from expr.call_expr.args
    elif kind == "list_expr":
        yield from expr.list_expr.elements
    elif kind == "struct_expr":
        for entry in expr.struct_expr.entries:
            if entry.HasField("map_key"):
                yield entry.map_key
            yield entry.value
    elif kind == "comprehension_expr":
        comp = expr.comprehension_expr
        yield comp.iter_range
        yield comp.accu_init
        yield comp.loop_condition
        yield comp.loop_step
        yield comp.result


def walk(expr: Any) -> Iterator[Any]:
    """expr and all its descendants, parents first."""
    stack = [expr]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(list(children(node))))


def type_name(t: Any) -> str:
    """A cel.expr.Type in cel-go's wording: int, list(string), map(string, dyn), optional_type(int)."""
    if t is None:
        return "dyn"
    kind = t.WhichOneof("type_kind")
    if kind == "dyn" or kind is None:
        return "dyn"
    if kind == "null":
        return "null_type"
    if kind == "primitive":
        return _PRIMITIVES.get(t.primitive, "dyn")
    if kind == "wrapper":
        return f"wrapper({_PRIMITIVES.get(t.wrapper, 'dyn')})"
    if kind == "well_known":
        return _WELL_KNOWN.get(t.well_known, "dyn")
    if kind == "list_type":
        return f"list({type_name(t.list_type.elem_type)})"
    if kind == "map_type":
        return f"map({type_name(t.map_type.key_type)}, {type_name(t.map_type.value_type)})"
    if kind == "message_type":
        message_type: str = t.message_type
        return message_type
    if kind == "type_param":
        type_param: str = t.type_param
        return type_param
    if kind == "type":
        return f"type({type_name(t.type)})"
    if kind == "abstract_type":
        params = ", ".join(type_name(p) for p in t.abstract_type.parameter_types)
        return f"{t.abstract_type.name}({params})" if params else t.abstract_type.name
    if kind == "error":
        return "*error*"
    return "dyn"


def node_type(checked: Any, expr: Any) -> str:
    """The checked type of one node, "dyn" when the checker recorded none."""
    t = checked.type_map.get(expr.id)
    return type_name(t) if t is not None else "dyn"
