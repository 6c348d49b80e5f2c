"""Python implementations of the helper functions the rewritten ASTs call."""

from __future__ import annotations

import datetime
import functools
import math
import re
from typing import Any

import cel_expr_python.cel as cel

from policyeditor.engine.cel.runtime import memory
from policyeditor.engine.cel.runtime.state import CURRENT, CostExceeded, current
from policyeditor.engine.jsonkinds import type_name

# Hidden key that carries an `Object.x.y{...}` construction's type name through CEL until the
# enclosing construction checks it against the field path (kubernetes/kubernetes
# staging/src/k8s.io/apiserver/pkg/cel/mutation/dynamic/objects.go,
# ObjectVal.CheckTypeNamesMatchFieldPathNames).
TYPE_KEY = "@policyeditor/construction-type"

VARIABLE_FN = "__k8s_variable"
VARIABLE_READY_FN = "__k8s_variable_ready"
OBJECT_FN = "__k8s_object"
JSONPATCH_FN = "__k8s_jsonpatch"  # type checking: returns the JSONPatch type
JSONPATCH_RUNTIME_FN = "__k8s_jsonpatch_value"  # what runs: returns the plain map
MAP_INSERT_FN = "__k8s_map_insert"
COST_FN = "__k8s_cost"
ADD_FN = "__k8s_add"  # a `_+_` charged by size, only while costs are computed (runtime.concat)
ADD_COST_FN = "__k8s_add_cost"
STRING_TRAVERSAL_FACTOR = 0.1  # cel-go common.StringTraversalCostFactor
SIZED_COST_FN = "__k8s_sized_cost"  # strings-extension calls charged by size (runtime.library_cost)
TRAVERSAL_COST_FN = "__k8s_traversal_cost"
GO_ZERO_TIME_FN = "__k8s_go_zero_time"
FORMAT_FN = "__k8s_format"

_JSONPATCH_FIELDS = ("op", "path", "from", "value")
_CURRENT = CURRENT


def _variable(name: str) -> Any:
    state = current()
    if state is None or state.resolver is None:
        raise ValueError(f"no such attribute(s): variables.{name}")
    return state.resolver.resolve(name, state)


def _variable_ready(name: str) -> bool:
    # Resolving fills the variable's holder (lowering._hold_variables reads it next).
    state = _CURRENT.get()
    if state is None or state.resolver is None:
        raise ValueError(f"no such attribute(s): variables.{name}")
    state.resolver.resolve(name, state)
    return True


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@functools.lru_cache(maxsize=4096)
def holder_name(variable: str) -> str | None:
    """The activation name of a variable's holder list (None when it cannot be an identifier)."""
    # `@` cannot appear in an identifier, so no comprehension variable can shadow the holder.
    return f"variables@{variable}" if _IDENTIFIER.fullmatch(variable) else None


def _check_nested(value: Any, path: str) -> Any:
    """Verify nested constructions' type names against path; return value without markers."""
    if isinstance(value, dict):
        name = value.get(TYPE_KEY)
        if name is not None and name != path:
            raise ValueError(
                f'type mismatch: unexpected type name "{name}", expected "{path}", which matches '
                "field name path from root Object type"
            )
        return {k: _check_nested(v, f"{path}.{k}") for k, v in value.items() if k != TYPE_KEY}
    if isinstance(value, list):
        # list elements are named after the list field: no `items` segment.
        return [_check_nested(item, path) for item in value]
    return value


def _object(name: str, fields: dict[str, Any]) -> dict[str, Any]:
    checked = {key: _check_nested(value, f"{name}.{key}") for key, value in fields.items()}
    checked[TYPE_KEY] = name
    return checked


def cel_type_name(value: Any) -> str:
    """The CEL type name of a plain value, as cel-go prints it in errors."""
    return type_name(value, "cel")


def _jsonpatch(fields: dict[str, Any]) -> dict[str, Any]:
    for key, value in fields.items():
        if key not in _JSONPATCH_FIELDS:
            raise ValueError(f"unexpected JSONPatchType field: {key}")
        if key != "value" and not isinstance(value, str):
            raise ValueError(
                f"unexpected type {cel_type_name(value)} for JSONPatchType '{key}' field"
            )
    return {key: strip_markers(value) for key, value in fields.items()}


def strip_markers(value: Any) -> Any:
    """A copy of value without construction type markers."""
    if isinstance(value, dict):
        return {k: strip_markers(v) for k, v in value.items() if k != TYPE_KEY}
    if isinstance(value, list):
        return [strip_markers(item) for item in value]
    return value


def _map_insert(accu: dict[str, Any], key: Any, value: Any = None) -> dict[str, Any]:
    # cel.@mapInsert(map, key, value) or cel.@mapInsert(map, otherMap) (transformMapEntry).
    result = dict(accu)
    if isinstance(key, dict) and value is None:
        for k, v in key.items():
            if k in result:
                raise ValueError(f"insert failed: key {k} already exists")
            result[k] = v
        return result
    if key in result:
        raise ValueError(f"insert failed: key {key} already exists")
    result[key] = value
    return result


def _cost(amount: int, condition: bool) -> bool:
    state = _CURRENT.get()  # called on every loop iteration: no helper in between
    if state is not None:
        # EvalState.charge inline for the usual case (no limit reached); charge() otherwise.
        cost = state.cost + amount
        budget = state.budget
        if (
            not state.exceeded
            and cost <= state.limit
            and (budget is None or cost <= budget.remaining)
        ):
            state.cost = cost
            return condition
        try:
            state.charge(amount)
        except CostExceeded:
            # Stop every loop at once; the evaluator reports the limit instead of the result.
            return False
    return condition


def _add_cost(size: int) -> bool:
    # cel-go: ceil(float64(size(lhs) + size(rhs)) * 0.1), computed in floating point as Go does;
    # -1: an operand failed, and cel-go charges such a call 1 (an error's size is 1: ceil(0.2)).
    state = _CURRENT.get()
    if state is not None:
        # Raising ends the evaluation (an error value), so no longer string is built.
        state.charge(math.ceil(size * STRING_TRAVERSAL_FACTOR) if size >= 0 else 1)
    return True


def _sized_cost(rule: int, size: int) -> bool:
    # library/cost.go: ceil(float64(size) * 0.1) (rule 1) or ceil(float64(size) * 2 * 0.1)
    # (rule 2), in floating point as Go computes it, less the 1 the static model counted.
    state = _CURRENT.get()
    if state is not None:
        scaled = size * STRING_TRAVERSAL_FACTOR if rule == 1 else size * 2 * STRING_TRAVERSAL_FACTOR
        state.charge(math.ceil(scaled) - 1)
    return True


def _traversal_cost(value: Any) -> bool:
    # library/cost.go traversalCost of indexOf/lastIndexOf's receiver, less the static 1.
    state = _CURRENT.get()
    if state is not None:
        from policyeditor.engine.cel.library.cost import traversal_cost

        state.charge(traversal_cost(value) - 1)
    return True


def _go_zero_time(moment: Any) -> Any:
    # Go's zero time is 0001-01-01T00:00:00Z, cel-cpp's is the Unix epoch: hand the engine its
    # own zero so optional.ofNonZeroValue() agrees with cel-go (the epoch itself still differs).
    if (moment.year, moment.month, moment.day, moment.hour, moment.minute, moment.second) == (
        1,
        1,
        1,
        0,
        0,
        0,
    ) and not moment.microsecond:
        return datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)
    return moment


def _format(fmt: str, args: list[Any], server_minor: int) -> str:
    from policyeditor.engine.cel.strings_format import format_string

    try:
        return format_string(fmt, args, server_minor or None)
    except MemoryError:
        # The engine makes this an error value, which `||` or a macro may absorb: mark the state.
        memory.note()
        raise


def check_only_declarations() -> list[cel.FunctionDecl]:
    """Declarations that only the type checker sees (the runtime AST calls others instead).

    They go through NewEnv(functions=...): only that path keeps declared result types (the
    extension path checks every result as dyn).
    """
    string_map = cel.Type.Map(cel.Type.STRING, cel.Type.DYN)
    return [
        cel.FunctionDecl(
            JSONPATCH_FN,
            # Checked as the JSONPatch message type (k8s_types.py) so list(JSONPatch) is inferred
            # through macros and fields type-check; JSONPATCH_RUNTIME_FN runs and returns a map.
            [cel.Overload(f"{JSONPATCH_FN}_map", cel.Type("JSONPatch"), [string_map])],
        )
    ]


def helper_extension() -> cel.CelExtension:
    """The helpers as an extension: only that path dispatches dyn parameters at runtime."""
    return cel.CelExtension("policyeditor.helpers", helper_declarations())


def helper_declarations() -> list[cel.FunctionDecl]:
    """Declarations of the helper functions, with their implementations."""
    dyn = cel.Type.DYN
    string = cel.Type.STRING
    boolean = cel.Type.BOOL
    string_map = cel.Type.Map(string, dyn)
    any_map = cel.Type.Map(dyn, dyn)
    return [
        _single(VARIABLE_FN, "string", dyn, [string], _variable),
        _single(VARIABLE_READY_FN, "string", boolean, [string], _variable_ready),
        _single(OBJECT_FN, "string_map", dyn, [string, string_map], _object),
        _single(JSONPATCH_RUNTIME_FN, "map", dyn, [string_map], _jsonpatch),
        cel.FunctionDecl(
            MAP_INSERT_FN,
            [
                cel.Overload(
                    f"{MAP_INSERT_FN}_map_key_value", any_map, [any_map, dyn, dyn], impl=_map_insert
                ),
                cel.Overload(
                    f"{MAP_INSERT_FN}_map_map", any_map, [any_map, any_map], impl=_map_insert
                ),
            ],
        ),
        _single(
            FORMAT_FN,
            "string_list_int",
            string,
            [string, cel.Type.List(dyn), cel.Type.INT],
            _format,
        ),
        _single(
            GO_ZERO_TIME_FN, "timestamp", cel.Type.TIMESTAMP, [cel.Type.TIMESTAMP], _go_zero_time
        ),
        _single(ADD_COST_FN, "int", boolean, [cel.Type.INT], _add_cost),
        _single(SIZED_COST_FN, "int_int", boolean, [cel.Type.INT, cel.Type.INT], _sized_cost),
        _single(TRAVERSAL_COST_FN, "dyn", boolean, [dyn], _traversal_cost),
        _single(COST_FN, "int_bool", boolean, [cel.Type.INT, boolean], _cost),
    ]


def _single(name: str, suffix: str, result: Any, params: list[Any], impl: Any) -> cel.FunctionDecl:
    """A function with one overload, `<name>_<suffix>`."""
    return cel.FunctionDecl(name, [cel.Overload(f"{name}_{suffix}", result, params, impl=impl)])
