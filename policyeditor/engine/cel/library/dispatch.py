"""Share one runtime implementation among overloads that cel-expr-python cannot tell apart."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from policyeditor.engine.cel.library.decls import Spec
from policyeditor.engine.cel.library.types import message_class

_SCALAR_KINDS = {
    "int": (int,),
    "uint": (int,),
    "double": (float,),
    "string": (str,),
    "bool": (bool,),
    "bytes": (bytes, bytearray),
    "duration": (datetime.timedelta,),
    "timestamp": (datetime.datetime,),
}


def runtime_kind(signature: str) -> str:
    """The kind cel-expr-python dispatches on: 'list', 'map', 'message', 'dyn' or the scalar name."""
    if signature.startswith("list"):
        return "list"
    if signature.startswith("map"):
        return "map"
    if signature in _SCALAR_KINDS or signature == "dyn":
        return signature
    return "message"


def _python_types(signature: str) -> tuple[type, ...] | None:
    kind = runtime_kind(signature)
    if kind == "message":
        return (message_class(signature),)
    if kind == "list":
        return (list,)
    if kind == "map":
        return (dict,)
    return _SCALAR_KINDS.get(kind)


def _dispatcher(candidates: list[Spec]) -> Callable[..., Any]:
    # merge_slots passes only specs with an implementation.
    table = [
        (tuple(_python_types(p) for p in spec.params), spec.impl)
        for spec in candidates
        if spec.impl is not None
    ]

    def dispatch(*args: Any) -> Any:
        for types, impl in table:
            if all(t is None or isinstance(a, t) for a, t in zip(args, types, strict=False)):
                return impl(*args)
        names = ", ".join(type(a).__name__ for a in args)
        raise TypeError(f"no implementation for ({names})")

    return dispatch


def merge_slots(specs: list[Spec], *, one_per_slot: bool) -> list[Spec]:
    """Give each runtime slot (name, member, kinds) exactly one implementation.

    Overloads of a slot keep their declarations; the first one carries an implementation that
    dispatches on the Python argument types to the right library code. With `one_per_slot`
    (CelExtension path, where even implementation-less overloads take a slot) only the first
    overload of each slot is kept.
    """
    slots: dict[tuple[str, bool, tuple[str, ...]], list[Spec]] = {}
    for spec in specs:
        key = (spec.name, spec.member, tuple(runtime_kind(p) for p in spec.params))
        slots.setdefault(key, []).append(spec)
    merged: list[Spec] = []
    for group in slots.values():
        with_impl = [s for s in group if s.impl is not None]
        distinct = {id(s.impl) for s in with_impl}
        if len(distinct) <= 1:
            impl = with_impl[0].impl if with_impl else None
        else:
            impl = _dispatcher(with_impl)
        first, rest = group[0], group[1:]
        merged.append(replace(first, impl=impl))
        if not one_per_slot:
            merged.extend(replace(s, impl=None) for s in rest)
    return merged


def hidden_overloads(specs: list[Spec]) -> list[Spec]:
    """The overloads that merge_slots(one_per_slot=True) leaves undeclared (all but a slot's first).

    Their implementation still runs (the slot's dispatcher) but the type checker never sees them:
    registry.env_declarations declares each again under an alias name for the checker alone.
    """
    seen: set[tuple[str, bool, tuple[str, ...]]] = set()
    hidden: list[Spec] = []
    for spec in specs:
        key = (spec.name, spec.member, tuple(runtime_kind(p) for p in spec.params))
        if key in seen:
            hidden.append(spec)
        seen.add(key)
    return hidden
