"""The AST rewrite both runtime size charges share: bind a value once in a comprehension over [].

`cel.bind(accu, init, (a || b) ? x : y)` written as a comprehension over an empty list: `init` is
evaluated once, counts no iteration of the engine's cap, and the conditional's condition is where
a costed helper call goes (runtime.concat, runtime.library_cost).
"""

from __future__ import annotations

from typing import Any

_BOOL = 1


def bind(
    out: Any, node: Any, init: Any, accu: str, bound_type: Any, result_type: Any, next_id: int
) -> tuple[Any, Any, int]:
    """Turn `node` into the binding comprehension; returns (conditional, its `||`, next free id).

    `init` must already be a copy (node is cleared); the caller adds the `||` call's two operands
    and then the conditional's two branches.
    """
    node_id = node.id
    node.Clear()
    node.id = node_id
    del out.reference_map[node_id]  # a comprehension has no reference
    comp = node.comprehension_expr
    comp.iter_var = "#unused"
    comp.accu_var = accu
    comp.iter_range.id = next_id
    comp.iter_range.list_expr.SetInParent()
    out.type_map[next_id].list_type.elem_type.dyn.SetInParent()
    comp.accu_init.CopyFrom(init)
    comp.loop_condition.id = next_id + 1
    comp.loop_condition.const_expr.bool_value = False
    out.type_map[next_id + 1].primitive = _BOOL
    next_id = ident(out, comp.loop_step, accu, bound_type, next_id + 2)
    result = comp.result
    result.id = next_id
    result.call_expr.function = "_?_:_"
    out.type_map[next_id].CopyFrom(result_type)
    out.reference_map[next_id].overload_id.append("conditional")
    either = result.call_expr.args.add()
    either.id = next_id + 1
    either.call_expr.function = "_||_"
    out.type_map[next_id + 1].primitive = _BOOL
    out.reference_map[next_id + 1].overload_id.append("logical_or")
    return result, either, next_id + 2


def ident(out: Any, expr: Any, name: str, type_: Any, next_id: int) -> int:
    """expr := the identifier `name` of type `type_` with id next_id; returns the next free id."""
    expr.id = next_id
    expr.ident_expr.name = name
    out.type_map[next_id].CopyFrom(type_)
    return next_id + 1
