"""Type checks of generic library overloads that cel-expr-python cannot declare (list(A) ...).

Kubernetes declares `list(A).indexOf(A) -> int` and `list(A).lastIndexOf(A) -> int`; here they
are declared over dyn (decls.py), so `[1].indexOf('a')` passes cel-expr-python's checker.
cel-core runs `generic_findings(checked)` after type checking (next to its own validators) to
report what cel-go reports.
"""

from __future__ import annotations

from typing import Any

_LIST_ELEMENT_FUNCTIONS = frozenset({"indexOf", "lastIndexOf"})


def _unifiable(left: Any, right: Any) -> bool:
    """True when a type parameter could bind both types (dyn, params and null bind anything)."""
    if left is None or right is None:
        return True
    kinds = (left.WhichOneof("type_kind"), right.WhichOneof("type_kind"))
    if any(kind in (None, "dyn", "type_param", "error", "null") for kind in kinds):
        return True
    if kinds[0] != kinds[1]:
        return False
    if kinds[0] == "list_type":
        return _unifiable(left.list_type.elem_type, right.list_type.elem_type)
    if kinds[0] == "map_type":
        return _unifiable(left.map_type.key_type, right.map_type.key_type) and _unifiable(
            left.map_type.value_type, right.map_type.value_type
        )
    same: bool = left == right  # protobuf Type messages: field-wise equality
    return same


def generic_findings(checked: Any) -> list[tuple[int, str]]:
    """(node id, cel-go message) for generic library calls whose argument cannot unify."""
    from policyeditor.engine.cel.syntax.walk import (  # lazy: cel/__init__ imports the libraries
        type_name,
        walk,
    )

    findings = []
    for node in walk(checked.expr):
        if node.WhichOneof("expr_kind") != "call_expr":
            continue
        call = node.call_expr
        if call.function not in _LIST_ELEMENT_FUNCTIONS or not call.HasField("target"):
            continue
        if len(call.args) != 1:
            continue
        target = checked.type_map.get(call.target.id)
        argument = checked.type_map.get(call.args[0].id)
        if target is None or target.WhichOneof("type_kind") != "list_type":
            continue
        if not _unifiable(target.list_type.elem_type, argument):
            findings.append(
                (
                    node.id,
                    f"found no matching overload for '{call.function}' applied to "
                    f"'{type_name(target)}.({type_name(argument)})'",
                )
            )
    return findings
