"""Rewrites of the checked AST for the runtime: plain-map typed variables, lazy variables,
transformMap's map insertion, and cost charging inside comprehension loops and by size, of
concatenated strings (concat) and of library calls (library_cost)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from policyeditor.engine.cel import cost
from policyeditor.engine.cel.environment import MAP_ALIASES
from policyeditor.engine.cel.runtime import concat, library_cost
from policyeditor.engine.cel.runtime.functions import (
    COST_FN,
    FORMAT_FN,
    GO_ZERO_TIME_FN,
    JSONPATCH_FN,
    JSONPATCH_RUNTIME_FN,
    MAP_INSERT_FN,
    OBJECT_FN,
    VARIABLE_FN,
    VARIABLE_READY_FN,
    holder_name,
)
from policyeditor.engine.cel.syntax import ast_pb
from policyeditor.engine.cel.syntax.walk import walk


@dataclass
class RuntimeAst:
    """The rewritten CheckedExpr plus what the evaluator must know about it."""

    checked: Any
    base_cost: int  # cost outside loops (cheaper branches), charged once per evaluation
    has_loops: bool
    variables: tuple[str, ...]  # composited variables the expression reads
    unwrap_optional: bool = False  # the program yields [value] / [] for an optional result
    # Activation names the program reads: only these are converted for the engine.
    idents: frozenset[str] = frozenset()
    # The program builds Object{...} values (their results carry construction markers).
    constructs: bool = False
    # The same program for when every variable it reads is resolved: holders read directly.
    resolved_checked: Any = None
    # Some `_+_` may concatenate strings or bytes: charged by their size when they run.
    concatenates: bool = False
    # Some library call is charged by its arguments' size when it runs (library_cost).
    charges_calls: bool = False

    @property
    def needs_state(self) -> bool:
        """True when helper functions read the evaluation state (costs, variables)."""
        return self.has_loops or self.concatenates or self.charges_calls or bool(self.variables)


def prepare(
    checked: Any,
    optional_variables: frozenset[str] = frozenset(),
    server_minor: int | None = None,
) -> RuntimeAst:
    """A copy of checked rewritten for evaluation (optional_variables: optional-typed ones).

    server_minor: the Kubernetes minor whose cel-go formats strings (strings_format.py).
    """
    out = ast_pb.CheckedExpr()
    out.CopyFrom(checked)
    next_id = (
        max([0, *out.type_map.keys(), *out.reference_map.keys(), *(n.id for n in walk(out.expr))])
        + 1
    )
    used_variables: list[str] = []
    has_loops = concatenates = False
    for node in list(walk(out.expr)):
        kind = node.WhichOneof("expr_kind")
        if kind == "ident_expr":
            name = node.ident_expr.name
            ref = out.reference_map.get(node.id)
            ref_name = ref.name if ref is not None and ref.name else name
            if ref_name in MAP_ALIASES:
                node.ident_expr.name = MAP_ALIASES[ref_name]
                if ref is not None:
                    out.reference_map[node.id].name = MAP_ALIASES[ref_name]
            elif ref_name.startswith("variables."):
                var = ref_name[len("variables.") :]
                used_variables.append(var)
                node_id = node.id
                _as_call(node, node_id, VARIABLE_FN)
                arg = node.call_expr.args.add()
                arg.id = next_id
                arg.const_expr.string_value = var
                out.type_map[next_id].primitive = 5  # STRING
                next_id += 1
                del out.reference_map[node_id]
                out.reference_map[node_id].overload_id.append(f"{VARIABLE_FN}_string")
                if var in optional_variables:
                    # An optional variable is resolved as [value] / []: index it back into an
                    # optional, since Python cannot hand optionals to the engine.
                    next_id = _optional_from_list(out, node, next_id)
            elif ref_name == "oldSelf" and "oldSelf" in optional_variables:
                # optionalOldSelf: the old value is bound as [value] / [] (see above).
                next_id = _optional_from_list(out, node, next_id)
        elif kind == "call_expr" and node.call_expr.function == VARIABLE_READY_FN:
            # `has(variables.x)` (syntax/rewrite.py): the expression depends on variable x.
            used_variables.append(node.call_expr.args[0].const_expr.string_value)
        elif kind == "call_expr" and node.call_expr.function == JSONPATCH_FN:
            node.call_expr.function = JSONPATCH_RUNTIME_FN
            del out.reference_map[node.id]
            out.reference_map[node.id].overload_id.append(f"{JSONPATCH_RUNTIME_FN}_map")
        elif kind == "call_expr" and node.call_expr.function == "cel.@mapInsert":
            node.call_expr.function = MAP_INSERT_FN
            arity = len(node.call_expr.args)
            overload = (
                f"{MAP_INSERT_FN}_map_key_value" if arity == 3 else f"{MAP_INSERT_FN}_map_map"
            )
            del out.reference_map[node.id]
            out.reference_map[node.id].overload_id.append(overload)
        elif (
            kind == "call_expr"
            and node.call_expr.function == "format"
            and node.call_expr.HasField("target")
            and len(node.call_expr.args) == 1
        ):
            # cel-go's format differs from the engine's: see strings_format.py.
            target = ast_pb.Expr()
            target.CopyFrom(node.call_expr.target)
            args = ast_pb.Expr()
            args.CopyFrom(node.call_expr.args[0])
            node.call_expr.ClearField("target")
            del node.call_expr.args[:]
            node.call_expr.args.add().CopyFrom(target)
            node.call_expr.args.add().CopyFrom(args)
            minor = node.call_expr.args.add()
            minor.id = next_id
            minor.const_expr.int64_value = server_minor or 0
            out.type_map[next_id].primitive = 2  # INT64
            next_id += 1
            node.call_expr.function = FORMAT_FN
            del out.reference_map[node.id]
            out.reference_map[node.id].overload_id.append(f"{FORMAT_FN}_string_list_int")
        elif kind == "call_expr" and node.call_expr.function == "optional.ofNonZeroValue":
            next_id = _wrap_go_zero_time(out, node, next_id)
        elif kind == "call_expr" and node.call_expr.function == "_+_":
            concatenates = concat.mark(out, node) or concatenates
        elif kind == "comprehension_expr":
            has_loops = True
    base = cost.fixed_cost(out.expr, minimum=True)
    if has_loops:
        next_id, has_loops = _instrument_loops(out, next_id)
    next_id, charged = _instrument_branches(out, next_id)
    has_loops = has_loops or charged
    if concatenates:
        next_id = concat.charge_concatenations(out, next_id)
    charges_calls = library_cost.charges(out)
    if charges_calls:
        next_id = library_cost.charge_calls(out, next_id)
    # Last, so that every cost above was computed on the `__k8s_variable` form.
    resolved = None
    if used_variables:
        resolved = ast_pb.CheckedExpr()
        resolved.CopyFrom(out)
        _hold_variables(resolved, next_id, direct=True)
    next_id = _hold_variables(out, next_id)
    idents = frozenset(
        node.ident_expr.name
        for node in walk(out.expr)
        if node.WhichOneof("expr_kind") == "ident_expr"
    )
    constructs = any(
        node.WhichOneof("expr_kind") == "call_expr" and node.call_expr.function == OBJECT_FN
        for node in walk(out.expr)
    )
    return RuntimeAst(
        out,
        base,
        has_loops,
        tuple(dict.fromkeys(used_variables)),
        idents=idents,
        constructs=constructs,
        resolved_checked=resolved,
        concatenates=concatenates,
        charges_calls=charges_calls,
    )


def _hold_variables(out: Any, next_id: int, *, direct: bool = False) -> int:
    """__k8s_variable('v') -> __k8s_variable_ready('v') ? `variables@v`[0] : false.

    The helper resolves the variable (lazily, once per activation) into a one-element holder
    list bound in the engine activation; reading the holder lets the engine convert the value
    once, where a function's result is converted from Python on every read. direct: the form
    for variables already resolved, `variables@v`[0] alone.
    """
    for node in list(walk(out.expr)):
        if node.WhichOneof("expr_kind") != "call_expr" or node.call_expr.function != VARIABLE_FN:
            continue
        name = node.call_expr.args[0].const_expr.string_value
        if holder_name(name) is None:
            continue  # not an identifier: keep the helper that returns the value
        node_id = node.id
        if direct:
            node.Clear()
            node.id = node_id
            _holder_read(out, node, name, next_id)
            del out.reference_map[node_id]
            out.reference_map[node_id].overload_id.append("index_list")
            next_id += 2
            continue
        ready = ast_pb.Expr()
        ready.CopyFrom(node)
        ready.id = next_id
        ready.call_expr.function = VARIABLE_READY_FN
        out.type_map[next_id].primitive = 1  # BOOL
        out.reference_map[next_id].overload_id.append(f"{VARIABLE_READY_FN}_string")
        _as_call(node, node_id, "_?_:_", ready)
        index = node.call_expr.args.add()
        index.id = next_id + 1
        _holder_read(out, index, name, next_id + 2)
        otherwise = node.call_expr.args.add()
        otherwise.id = next_id + 4
        otherwise.const_expr.bool_value = False  # never taken: the helper is true or an error
        out.type_map[next_id + 1].dyn.SetInParent()
        out.type_map[next_id + 4].primitive = 1  # BOOL
        out.reference_map[next_id + 1].overload_id.append("index_list")
        del out.reference_map[node_id]
        out.reference_map[node_id].overload_id.append("conditional")
        next_id += 5
    return next_id


def _as_call(node: Any, node_id: int, function: str, *operands: Any) -> None:
    """Turn node, in place, into the call `function` with id node_id and copies of operands."""
    node.Clear()
    node.id = node_id
    node.call_expr.function = function
    for operand in operands:
        node.call_expr.args.add().CopyFrom(operand)


def _holder_read(out: Any, index: Any, name: str, next_id: int) -> None:
    """Make index the call `variables@name`[0] (its operands get ids next_id, next_id + 1)."""
    index.call_expr.function = "_[_]"
    holder = index.call_expr.args.add()
    holder.id = next_id
    holder.ident_expr.name = holder_name(name)
    position = index.call_expr.args.add()
    position.id = next_id + 1
    position.const_expr.int64_value = 0
    out.type_map[next_id].list_type.elem_type.dyn.SetInParent()
    out.type_map[next_id + 1].primitive = 2  # INT64


def _optional_from_list(out: Any, node: Any, next_id: int) -> int:
    """node (a 0/1-element list) -> node[?0]."""
    inner = ast_pb.Expr()
    inner.CopyFrom(node)
    inner.id = next_id
    out.type_map[next_id].list_type.elem_type.dyn.SetInParent()
    out.reference_map[next_id].CopyFrom(out.reference_map[node.id])
    node_id = node.id
    _as_call(node, node_id, "_[?_]", inner)
    index = node.call_expr.args.add()
    index.id = next_id + 1
    index.const_expr.int64_value = 0
    out.type_map[next_id + 1].primitive = 2  # INT64
    del out.reference_map[node_id]
    out.reference_map[node_id].name = "_[?_]"
    out.reference_map[node_id].overload_id.append("list_optindex_optional_int")
    return next_id + 2


def _wrap_go_zero_time(out: Any, node: Any, next_id: int) -> int:
    """optional.ofNonZeroValue(timestamp) -> ofNonZeroValue(__k8s_go_zero_time(timestamp))."""
    if len(node.call_expr.args) != 1:
        return next_id
    arg = node.call_expr.args[0]
    arg_type = out.type_map.get(arg.id)
    if (
        arg_type is None
        or arg_type.WhichOneof("type_kind") != "well_known"
        or arg_type.well_known != 2
    ):
        return next_id
    inner = ast_pb.Expr()
    inner.CopyFrom(arg)
    _as_call(arg, next_id, GO_ZERO_TIME_FN, inner)
    out.type_map[next_id].CopyFrom(arg_type)
    out.reference_map[next_id].overload_id.append(f"{GO_ZERO_TIME_FN}_timestamp")
    return next_id + 1


# Operands of && / || dearer than this charge their cost when (and only when) they run; cheaper
# ones are left out of the count, which keeps the common case free of helper calls.
BRANCH_CHARGE_THRESHOLD = 100


def _charge_wrap(out: Any, expr: Any, amount: int, next_id: int) -> int:
    """Replace bool expr by __k8s_cost(amount, expr) in place."""
    inner = ast_pb.Expr()
    inner.CopyFrom(expr)
    _as_call(expr, next_id, COST_FN)
    constant = expr.call_expr.args.add()
    constant.id = next_id + 1
    constant.const_expr.int64_value = amount
    expr.call_expr.args.add().CopyFrom(inner)
    out.type_map[next_id].primitive = 1  # BOOL
    out.type_map[next_id + 1].primitive = 2  # INT64
    out.reference_map[next_id].overload_id.append(f"{COST_FN}_int_bool")
    return next_id + 2


def _instrument_branches(out: Any, next_id: int) -> tuple[int, bool]:
    """Charge expensive right-hand operands of && and || when they are evaluated."""
    charged = False
    for node in list(walk(out.expr)):
        if node.WhichOneof("expr_kind") != "call_expr" or node.call_expr.function not in (
            "_&&_",
            "_||_",
        ):
            continue
        for operand in list(node.call_expr.args)[1:]:
            amount = cost.fixed_cost(operand, minimum=False)
            if amount >= BRANCH_CHARGE_THRESHOLD:
                next_id = _charge_wrap(out, operand, amount, next_id)
                charged = True
    return next_id, charged


def _instrument_loops(out: Any, next_id: int) -> tuple[int, bool]:
    """Wrap each loop condition as __k8s_cost(per-iteration cost, condition); True if any."""
    instrumented = False
    for node in list(walk(out.expr)):
        if node.WhichOneof("expr_kind") != "comprehension_expr":
            continue
        comp = node.comprehension_expr
        if cost.literal_size(comp.iter_range) is not None:
            continue  # counted statically (cost.fixed_cost)
        per_iteration = cost.iteration_cost(comp)
        next_id = _charge_wrap(out, comp.loop_condition, per_iteration, next_id)
        instrumented = True
    return next_id, instrumented
