"""Size-based runtime costs of the strings-extension calls Kubernetes' CallCost prices.

kube-apiserver's library/cost.go CallCost charges, for the cel-go strings extension (args[0] is
the receiver, sizes are Size(): code points for strings):
- `lowerAscii`, `upperAscii`, `substring`, `trim`: ceil(size(args[0]) * 0.1);
- `replace`, `split`: ceil(size(args[0]) * 2 * 0.1);
- `join`: ceil(size(result) * 2 * 0.1);
- `indexOf`, `lastIndexOf` (strings and lists alike, by name): traversalCost(args[0]).
These run inside cel-expr-python, so such a call is rewritten once the static costs are known
(they counted it as cel-go's default of 1, which is what a failed receiver costs):

    cel.bind(@libN, receiver, (__k8s_sized_cost(rule, size(@libN)) || true)
             ? @libN.f(args) : @libN)                        # receiver rules
    cel.bind(@libN, list.join(sep), (__k8s_sized_cost(2, size(@libN)) || true)
             ? @libN : @libN)                                # join: the result's size
    cel.bind(@libN, receiver, (__k8s_traversal_cost(@libN) || true) ? @libN.f(args) : @libN)

a comprehension over an empty list as in runtime.concat: the receiver is evaluated once and
only its size (or, for the traversal, the value) reaches Python, which charges the formula
minus the 1 already counted. The else branch is never taken (the helpers return true).
The Kubernetes library functions implemented in Python charge themselves (library/decls.py).
"""

from __future__ import annotations

from typing import Any

from policyeditor.engine.cel.library import cost as library_cost
from policyeditor.engine.cel.runtime.bind import bind, ident
from policyeditor.engine.cel.runtime.functions import SIZED_COST_FN, TRAVERSAL_COST_FN
from policyeditor.engine.cel.syntax import ast_pb
from policyeditor.engine.cel.syntax.walk import walk

TENTH, FIFTH = 1, 2  # rules of __k8s_sized_cost: size * 0.1, size * 2 * 0.1
_RECEIVER_RULES = {
    **dict.fromkeys(
        (
            "string_lower_ascii",
            "string_upper_ascii",
            "string_substring_int",
            "string_substring_int_int",
            "string_trim",
        ),
        TENTH,
    ),
    **dict.fromkeys(
        (
            "string_replace_string_string",
            "string_replace_string_string_int",
            "string_split_string",
            "string_split_string_int",
        ),
        FIFTH,
    ),
}
_RESULT_RULES = {"list_join": FIFTH, "list_join_string": FIFTH}
_TRAVERSED = frozenset({"indexOf", "lastIndexOf"})
_BOOL, _INT64 = 1, 2


def charged_by_library(node: Any) -> bool:
    """True for a call of a Kubernetes library function that charges itself when it runs."""
    return node.call_expr.function in library_cost.RUNTIME_CHARGED


def _rule(out: Any, node: Any) -> tuple[str, int] | None:
    """('receiver' | 'result' | 'traversal', rule) for a call charged here, else None."""
    call = node.call_expr
    if not call.HasField("target"):
        return None
    if call.function in _TRAVERSED:
        return "traversal", 0
    ref = out.reference_map.get(node.id)
    if ref is None or len(ref.overload_id) != 1:
        return None
    overload = ref.overload_id[0]
    if overload in _RECEIVER_RULES:
        return "receiver", _RECEIVER_RULES[overload]
    if overload in _RESULT_RULES:
        return "result", _RESULT_RULES[overload]
    return None


def charges(out: Any) -> bool:
    """True when the expression calls a function charged here or by the library itself."""
    for node in walk(out.expr):
        if node.WhichOneof("expr_kind") == "call_expr" and (
            charged_by_library(node) or _rule(out, node) is not None
        ):
            return True
    return False


def charge_calls(out: Any, next_id: int) -> int:
    """Rewrite every strings-extension call charged by size; returns the next free id."""
    # Innermost first: an outer rewrite moves its receiver, which must be rewritten by then.
    for node in reversed(list(walk(out.expr))):
        if node.WhichOneof("expr_kind") != "call_expr":
            continue
        found = _rule(out, node)
        if found is not None:
            next_id = _rewrite(out, node, found[0], found[1], next_id)
    return next_id


def _rewrite(out: Any, node: Any, kind: str, rule: int, next_id: int) -> int:
    call = ast_pb.Expr()
    call.CopyFrom(node)
    call.id = next_id
    result_type = ast_pb.Type()
    result_type.CopyFrom(out.type_map[node.id])
    out.type_map[next_id].CopyFrom(result_type)
    out.reference_map[next_id].CopyFrom(out.reference_map[node.id])
    next_id += 1
    accu = f"@lib{node.id}"
    if kind == "result":
        init, bound_type = call, result_type
    else:
        init = ast_pb.Expr()
        init.CopyFrom(call.call_expr.target)
        bound_type = ast_pb.Type()
        bound_type.CopyFrom(out.type_map[init.id])
        next_id = ident(out, call.call_expr.target, accu, bound_type, next_id)
    result, either, next_id = bind(out, node, init, accu, bound_type, result_type, next_id)
    charge = either.call_expr.args.add()
    charge.id = next_id
    out.type_map[next_id].primitive = _BOOL
    next_id += 1
    if kind == "traversal":
        charge.call_expr.function = TRAVERSAL_COST_FN
        out.reference_map[charge.id].overload_id.append(f"{TRAVERSAL_COST_FN}_dyn")
        next_id = ident(out, charge.call_expr.args.add(), accu, bound_type, next_id)
    else:
        charge.call_expr.function = SIZED_COST_FN
        out.reference_map[charge.id].overload_id.append(f"{SIZED_COST_FN}_int_int")
        constant = charge.call_expr.args.add()
        constant.id = next_id
        constant.const_expr.int64_value = rule
        out.type_map[next_id].primitive = _INT64
        size = charge.call_expr.args.add()
        size.id = next_id + 1
        size.call_expr.function = "size"
        out.type_map[next_id + 1].primitive = _INT64
        next_id = ident(out, size.call_expr.args.add(), accu, bound_type, next_id + 2)
    # `|| true`: a failed receiver has no size, and its 1 was counted statically.
    otherwise = either.call_expr.args.add()
    otherwise.id = next_id
    otherwise.const_expr.bool_value = True
    out.type_map[next_id].primitive = _BOOL
    next_id += 1
    if kind == "result":
        next_id = ident(out, result.call_expr.args.add(), accu, bound_type, next_id)
    else:
        result.call_expr.args.add().CopyFrom(call)
    return ident(out, result.call_expr.args.add(), accu, bound_type, next_id)
