"""Overloads the checker knows by an alias name: calls retried under it, then renamed back."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from policyeditor.engine.cel.environment import split_type_params
from policyeditor.engine.cel.syntax import rewrite
from policyeditor.engine.cel.syntax.walk import walk

_NO_OVERLOAD = re.compile(r"^found no matching overload for '([^']+)' applied to '\((.*)\)'$")
_NAME_BEFORE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*\Z")


def _type_text(signature: str) -> str:
    """A cel.Type signature as the checker prints it: list<int> -> list(int)."""
    return signature.replace("<", "(").replace(">", ")")


def _matches(alias: Any, arguments: list[str]) -> bool:
    params = [_type_text(p) for p in alias.params]
    return len(params) == len(arguments) and all(
        p in ("dyn", a) for p, a in zip(params, arguments, strict=True)
    )


def retry_under_alias(
    rw: rewrite.Rewrite, message: str, offset: int, aliases: Sequence[Any]
) -> bool:
    """Rename the refused call at offset (original text) to the alias that takes its arguments.

    message is the checker's "found no matching overload for 'f' applied to '(T, ...)'" (a member
    call's receiver first) reported at the call's `(`; True when a rewrite was added.
    """
    match = _NO_OVERLOAD.match(message)
    if match is None or not aliases:
        return False
    name, arguments = match.group(1), split_type_params(match.group(2))
    alias = next((a for a in aliases if a.name == name and _matches(a, arguments)), None)
    if alias is None or rw.original[offset : offset + 1] != "(":
        return False
    written = _NAME_BEFORE.search(rw.original[:offset])
    if written is None or written.group(1) != name:
        return False
    rw.add(written.start(1), written.end(1), alias.alias)
    return True


def restore_names(checked: Any, aliases: Sequence[Any]) -> None:
    """Give aliased calls of checked their own name and overload id back (in place).

    The runtime dispatches on the name and the argument kinds, where the slot's one function
    runs the implementation of whichever overload the value belongs to.
    """
    if not aliases:
        return
    by_alias = {a.alias: a for a in aliases}
    for node in walk(checked.expr):
        if node.WhichOneof("expr_kind") != "call_expr":
            continue
        alias = by_alias.get(node.call_expr.function)
        if alias is None:
            continue
        node.call_expr.function = alias.name
        reference = checked.reference_map[node.id]
        del reference.overload_id[:]
        reference.overload_id.append(alias.overload_id)


def plain_names(message: str, aliases: Sequence[Any]) -> str:
    """message with alias names replaced by the functions' own names."""
    for alias in aliases:
        if alias.alias in message:
            message = message.replace(alias.alias, alias.name)
    return message
