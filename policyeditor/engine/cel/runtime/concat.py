"""String and bytes concatenation charged by size at runtime, as cel-go's cost tracker does.

cel-go (interpreter/runtimecost.go, costCall) charges a `_+_` whose overload is add_string or
add_bytes ceil((size(lhs) + size(rhs)) * 0.1) (common.StringTraversalCostFactor; sizes in code
points for strings, bytes for bytes). Every other `_+_` costs 1: lists (AddList is O(1) there),
numbers, and a `_+_` the checker left with several overloads (dyn operands), because cel-go's
planner then has no overload id to cost (planner.resolveFunction). Kubernetes' CallCost leaves
`_+_` to cel-go. The size is only known when the expression runs, so such a `_+_` is marked
while the static costs are computed (it costs 0 there) and then rewritten into

    cel.bind(@concatN, lhs + rhs,
             (__k8s_add_cost(size(@concatN)) || __k8s_add_cost(-1)) ? @concatN : @concatN)

a comprehension over an empty list: the result is computed once, counts no iteration of the
engine's cap, and only its size reaches Python. When an operand failed, size() fails too and
`||` charges the 1 that cel-go charges for a failed call (sizes of errors are 1: ceil(0.2)).
"""

from __future__ import annotations

from typing import Any

from policyeditor.engine.cel.runtime.bind import bind, ident
from policyeditor.engine.cel.runtime.functions import ADD_COST_FN, ADD_FN
from policyeditor.engine.cel.syntax import ast_pb
from policyeditor.engine.cel.syntax.walk import walk

# cel-go's overloads of `_+_` that are charged by size.
SIZED_OVERLOADS = frozenset({"add_string", "add_bytes"})
_SIZE_OVERLOAD = {"add_string": "size_string", "add_bytes": "size_bytes"}
_BOOL, _INT64 = 1, 2


def mark(out: Any, node: Any) -> bool:
    """Rename a `_+_` that cel-go charges by size to the marker; True if it did."""
    ref = out.reference_map.get(node.id)
    if ref is None or len(ref.overload_id) != 1 or ref.overload_id[0] not in SIZED_OVERLOADS:
        return False
    node.call_expr.function = ADD_FN
    return True


def charge_concatenations(out: Any, next_id: int) -> int:
    """Rewrite every marked `_+_` (see the module docstring); returns the next free id."""
    # Innermost first: an outer rewrite copies its operands, which must be rewritten by then.
    for node in reversed(list(walk(out.expr))):
        if node.WhichOneof("expr_kind") == "call_expr" and node.call_expr.function == ADD_FN:
            next_id = _rewrite(out, node, next_id)
    return next_id


def _rewrite(out: Any, node: Any, next_id: int) -> int:
    overload = out.reference_map[node.id].overload_id[0]
    result_type = ast_pb.Type()
    result_type.CopyFrom(out.type_map[node.id])
    add = ast_pb.Expr()
    add.CopyFrom(node)
    add.call_expr.function = "_+_"
    add.id = next_id
    out.type_map[next_id].CopyFrom(result_type)
    out.reference_map[next_id].CopyFrom(out.reference_map[node.id])
    next_id += 1
    accu = f"@concat{node.id}"
    # result: (__k8s_add_cost(size(@concatN)) || __k8s_add_cost(-1)) ? @concatN : @concatN
    result, either, next_id = bind(out, node, add, accu, result_type, result_type, next_id)
    charge = _charge(out, either.call_expr.args.add(), next_id)
    size = charge.call_expr.args.add()
    size.id = next_id + 1
    size.call_expr.function = "size"
    out.type_map[next_id + 1].primitive = _INT64
    out.reference_map[next_id + 1].overload_id.append(_SIZE_OVERLOAD[overload])
    next_id = ident(out, size.call_expr.args.add(), accu, result_type, next_id + 2)
    failed = _charge(out, either.call_expr.args.add(), next_id)
    unsized = failed.call_expr.args.add()
    unsized.id = next_id + 1
    unsized.const_expr.int64_value = -1
    out.type_map[next_id + 1].primitive = _INT64
    next_id = ident(out, result.call_expr.args.add(), accu, result_type, next_id + 2)
    return ident(out, result.call_expr.args.add(), accu, result_type, next_id)


def _charge(out: Any, expr: Any, next_id: int) -> Any:
    """expr := __k8s_add_cost(...) with id next_id; the caller adds the argument."""
    expr.id = next_id
    expr.call_expr.function = ADD_COST_FN
    out.type_map[next_id].primitive = _BOOL
    out.reference_map[next_id].overload_id.append(f"{ADD_COST_FN}_int")
    return expr
