"""Cost of expressions in cel-go's model: static estimates and per-node costs.

Static estimates follow google/cel-go checker/cost.go (coster), runtime costs
interpreter/runtimecost.go (CostTracker); the limits are kubernetes/kubernetes
staging/src/k8s.io/apiserver/pkg/apis/cel/config.go (PerCallLimit, RuntimeCELCostBudget).
"""

from __future__ import annotations

from typing import Any

from policyeditor.engine.cel.library import cost as library_cost
from policyeditor.engine.cel.syntax.walk import children

PER_CALL_LIMIT = 1_000_000
RUNTIME_BUDGET = 10_000_000
MATCH_CONDITIONS_BUDGET = 2_500_000
AUTHZ_CHECK_COST = 350_000
MAX_REQUEST_SIZE = 3 * 1024 * 1024
LIST_CREATE_COST = 10
MAP_CREATE_COST = 30
STRUCT_CREATE_COST = 40
# An unbounded list of the admission variables holds at most this many elements (each at least
# one byte plus a separator, within one request).
UNBOUNDED_ITERATIONS = (MAX_REQUEST_SIZE - 2) // 2

# Calls whose cost is not cel-go's default of 1.
_CALL_COSTS: dict[str, int] = {"check": AUTHZ_CHECK_COST}
# Helpers of the rewritten AST: free, as what they stand for is free in cel-go.
_FREE_CALLS = frozenset({"__k8s_variable", "__k8s_cost", "@not_strictly_false"})
_LOGIC = frozenset({"_&&_", "_||_"})


def call_cost(function: str) -> int:
    """Runtime cost of one call of function (sizes unknown: cel-go's minimum)."""
    if function == "__k8s_variable":
        return 2  # cel-go: the `variables` identifier plus the field selection
    if function == "__k8s_variable_ready":
        return 1  # `has(variables.x)`: the identifier; the presence test itself is free
    if function in _FREE_CALLS:
        return 0
    if function == "__k8s_add":
        return 0  # `_+_` on strings or bytes: charged by size when it runs (runtime.concat)
    if function in ("__k8s_object", "__k8s_jsonpatch", "__k8s_jsonpatch_value"):
        return STRUCT_CREATE_COST
    return _CALL_COSTS.get(function) or library_cost.STATIC_COSTS.get(function, 1)


def node_cost(expr: Any) -> int:
    """The cost of expr itself, without its children."""
    kind = expr.WhichOneof("expr_kind")
    if kind == "ident_expr":
        return 1
    if kind == "select_expr":
        return 0 if expr.select_expr.test_only else 1  # presence tests are free in Kubernetes
    if kind == "call_expr":
        return call_cost(expr.call_expr.function)
    if kind == "list_expr":
        return LIST_CREATE_COST
    if kind == "struct_expr":
        return STRUCT_CREATE_COST if expr.struct_expr.message_name else MAP_CREATE_COST
    return 0


def fixed_cost(expr: Any, *, minimum: bool) -> int:
    """Cost outside comprehension loops; branches take the cheaper (minimum) or dearer one."""
    kind = expr.WhichOneof("expr_kind")
    if kind == "comprehension_expr":
        comp = expr.comprehension_expr
        fixed = sum(
            fixed_cost(part, minimum=minimum)
            for part in (comp.iter_range, comp.accu_init, comp.result)
        )
        size = literal_size(comp.iter_range)
        # A loop over a literal runs a known number of times: no need to count it at runtime.
        return fixed if size is None else fixed + size * iteration_cost(comp)
    if kind == "call_expr" and expr.call_expr.function in _LOGIC | {"_?_:_"}:
        args = list(expr.call_expr.args)
        head = fixed_cost(args[0], minimum=minimum)
        rest = [fixed_cost(a, minimum=minimum) for a in args[1:]]
        pick = min if minimum else max
        if expr.call_expr.function == "_?_:_":
            return 1 + head + pick(rest)
        # && / || may stop after the first operand.
        return head + (0 if minimum else sum(rest))
    return node_cost(expr) + sum(fixed_cost(child, minimum=minimum) for child in children(expr))


def iteration_cost(comp: Any) -> int:
    """Cost of one loop iteration of a comprehension (nested loops count their fixed part)."""
    return max(
        1,
        fixed_cost(comp.loop_condition, minimum=False) + fixed_cost(comp.loop_step, minimum=False),
    )


def estimate(expr: Any, iterations: int = UNBOUNDED_ITERATIONS) -> int:
    """Static upper estimate; a loop over an unbounded value runs `iterations` times."""
    kind = expr.WhichOneof("expr_kind")
    if kind == "comprehension_expr":
        comp = expr.comprehension_expr
        size = literal_size(comp.iter_range)
        loops = iterations if size is None else size
        body = estimate(comp.loop_condition, iterations) + estimate(comp.loop_step, iterations)
        return (
            estimate(comp.iter_range, iterations)
            + estimate(comp.accu_init, iterations)
            + estimate(comp.result, iterations)
            + loops * max(1, body)
        )
    if kind == "call_expr" and expr.call_expr.function == "_?_:_":
        args = list(expr.call_expr.args)
        return (
            1
            + estimate(args[0], iterations)
            + max(estimate(args[1], iterations), estimate(args[2], iterations))
        )
    return node_cost(expr) + sum(estimate(child, iterations) for child in children(expr))


def literal_size(expr: Any) -> int | None:
    """Element count of a list/map literal, None for anything else."""
    kind = expr.WhichOneof("expr_kind")
    if kind == "list_expr":
        return len(expr.list_expr.elements)
    if kind == "struct_expr" and not expr.struct_expr.message_name:
        return len(expr.struct_expr.entries)
    return None
