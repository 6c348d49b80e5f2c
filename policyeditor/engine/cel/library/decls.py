"""Turn compact overload specs into cel-expr-python FunctionDecls, within the engine's rules."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from cel_expr_python import cel

from policyeditor.engine.cel.library import cost
from policyeditor.engine.cel.library.errors import guarded
from policyeditor.engine.cel.runtime.state import CURRENT
from policyeditor.engine.cel.runtime.wellknown import protobuf_time

# Rules of cel-expr-python 0.1.3 that shape these declarations (found by experiment):
# - At runtime overloads are dispatched on value *kinds* (list, map, string, message, ...), not on
#   full types: overloads list(int) and list(double), or net.IP and net.CIDR, share one runtime
#   slot. Exactly one overload per slot carries the implementation (which then dispatches on the
#   Python value); the others are declared for the type checker only (`impl=None`).
# - A function name that the standard library or a built-in extension already declares (`string`,
#   strings-ext `indexOf`/`lastIndexOf`) cannot be passed in NewEnv(functions=...) ("declared multiple
#   times"); it merges only through a cel.CelExtension listed *after* the built-in extensions. In
#   that path implementation-less overloads still take a runtime slot, so such a function gets one
#   overload per slot.
# - In the NewEnv(functions=...) path a top-level `dyn` parameter never matches at runtime ("No
#   matching overloads found"); through a CelExtension it matches anything. Specs with a dyn
#   parameter therefore go the extension way (registry.env_declarations).
# - Type parameters (list(A)) cannot be given from Python; generic functions use dyn.
# - A Python implementation cannot return an optional value (see formats_decls.py).


@dataclass(frozen=True)
class Spec:
    """One overload: `name(params) -> result`, params as cel.Type signatures ("list<int>", "net.IP")."""

    name: str
    overload_id: str
    params: tuple[str, ...]
    result: str
    member: bool = False
    impl: Callable[..., Any] | None = None
    # True when `name` clashes with a stdlib/extension function (goes into a CelExtension)
    extension: bool = False


def comparison_specs(prefix: str, type_name: str, compare: Callable[..., int]) -> list[Spec]:
    """isGreaterThan, isLessThan and compareTo of a type ordered by `compare` (-1, 0 or 1)."""
    pair = (type_name, type_name)
    return [
        Spec("isGreaterThan", f"{prefix}_is_greater_than", pair, "bool", True, _is(compare, 1)),
        Spec("isLessThan", f"{prefix}_is_less_than", pair, "bool", True, _is(compare, -1)),
        Spec("compareTo", f"{prefix}_compare_to", pair, "int", True, compare),
    ]


def _is(compare: Callable[..., int], wanted: int) -> Callable[..., bool]:
    return lambda a, b: compare(a, b) == wanted


def _dyn_result(function: Callable[..., Any]) -> Callable[..., Any]:
    return lambda *args: protobuf_time(function(*args))


def _type(signature: str) -> cel.Type:
    return cel.Type(signature)


def build_function_decls(specs: Iterable[Spec]) -> list[cel.FunctionDecl]:
    """One FunctionDecl per function name, overloads in spec order, implementations guarded."""
    by_name: dict[str, list[cel.Overload]] = {}
    for spec in specs:
        overload = cel.Overload(
            spec.overload_id,
            _type(spec.result),
            [_type(p) for p in spec.params],
            is_member=spec.member,
            impl=_implementation(spec),
        )
        by_name.setdefault(spec.name, []).append(overload)
    return [cel.FunctionDecl(name, overloads) for name, overloads in by_name.items()]


def _charged(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    """Charge library/cost.go's CallCost for these arguments before running function."""
    current = CURRENT.get
    call_cost = cost.call_cost

    def charged(*args: Any) -> Any:
        state = current()
        if state is not None:
            # The static model already counted cel-go's default of 1 for this call (that 1 is
            # what stays when an argument fails and no implementation runs): here only the
            # difference, which may be -1. Raising ends the evaluation before the call's work.
            state.charge((call_cost(name, args) or 0) - 1)
        return function(*args)

    return charged


def _implementation(spec: Spec) -> Callable[..., Any] | None:
    if spec.impl is None:
        return None
    impl = guarded(spec.impl)
    if spec.name in cost.RUNTIME_CHARGED:
        impl = _charged(spec.name, impl)
    return _dyn_result(impl) if spec.result == "dyn" else impl
