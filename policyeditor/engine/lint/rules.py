"""The pitfalls the issue trackers and the Kubernetes docs name most (PE101-PE108).

Sources: kubernetes/kubernetes#118230 (has() is for fields, `in` for map keys; keys with dots),
kyverno/kyverno#10576 (`object` on DELETE), kubernetes/kubernetes staging/src/k8s.io/apiserver/
pkg/cel/library/authz.go (check() returns a Decision), staging/src/k8s.io/apiserver/pkg/admission/
plugin/policy/validating/validator.go (a failing messageExpression falls back to message).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from policyeditor.engine.lint.nodes import (
    MAP_FIELDS,
    call,
    const_kind,
    const_string,
    dotted,
    first_ident,
    kind,
    null_compared,
    path_of,
    presence_tests,
    reads_operation,
    uses_optionals,
)
from policyeditor.engine.lint.sources import Expression, Facts, field_types

# (node the finding points at, message, the fix for this place)
Hit = tuple[Any, str, str]
ROOTS = ("object", "oldObject", "params", "namespaceObject")


def has_on_map_key(e: Expression, facts: Facts, up: dict[int, Any]) -> Iterator[Hit]:
    """PE101: has(object.metadata.labels.foo) tests a map key as if it were a field."""
    for node in e.nodes:
        if kind(node) != "select_expr" or not node.select_expr.test_only:
            continue
        holder = path_of(node.select_expr.operand)
        if not holder or holder[-1] not in MAP_FIELDS or holder[0] not in ROOTS:
            continue
        key = node.select_expr.field
        where = dotted(holder)
        yield (
            node,
            f"has({where}.{key}) tests the key {key!r} of the map {holder[-1]} as a field: it fails "
            f'with "no such key: {holder[-1]}" when the object has no {holder[-1]}, and keys with '
            "dots, slashes or dashes cannot be written this way at all",
            f"has({where}) && {key!r} in {where}",
        )


def dotted_map_keys(e: Expression, facts: Facts, up: dict[int, Any]) -> Iterator[Hit]:
    """PE102: object.metadata.labels.app.kubernetes.io/name reads fields and divides."""
    for node in e.nodes:
        if kind(node) != "select_expr":
            continue
        holder = path_of(node.select_expr.operand)
        if not holder or holder[-1] not in {"labels", "annotations"} or holder[0] not in ROOTS:
            continue
        key = str(node.select_expr.field)
        top = node
        parent = up.get(top.id)
        while parent is not None and kind(parent) == "select_expr":
            key += "." + str(parent.select_expr.field)
            top, parent = parent, up.get(parent.id)
        if (
            parent is not None
            and call(parent, "_/_", "_-_")
            and parent.call_expr.args[0].id == top.id
        ):
            rest = path_of(parent.call_expr.args[1])
            if rest is not None:
                key += ("/" if parent.call_expr.function == "_/_" else "-") + ".".join(rest)
        if top.id == node.id and "/" not in key and "-" not in key:
            continue  # a plain identifier key: legal, if fragile (PE114 covers absence)
        yield (
            node,
            f"{dotted(holder)}.{key} is read as field selections"
            + (" and arithmetic" if "/" in key or "-" in key else "")
            + f", not as the key {key!r}: keys with dots, slashes or dashes need an index",
            f"{dotted(holder)}[{key!r}]",
        )


def _unguarded(e: Expression, facts: Facts, name: str) -> bool:
    if facts.match_conditions_guard:
        return False
    return not (reads_operation(e.nodes) or null_compared(e.nodes, name))


def _null_read(
    e: Expression, facts: Facts, name: str, null_on: set[str], message: str, fix: str
) -> Iterator[Hit]:
    """`name` read unguarded where a matched operation of `null_on` leaves it null."""
    if not facts.operations & null_on or e.context == "variable":
        return
    node = first_ident(e.nodes, name)
    if node is not None and _unguarded(e, facts, name):
        yield node, message, fix


def object_on_delete(e: Expression, facts: Facts, up: dict[int, Any]) -> Iterator[Hit]:
    """PE103: `object` is null on DELETE; reading it fails without a guard."""
    yield from _null_read(
        e,
        facts,
        "object",
        {"DELETE"},
        "the policy matches DELETE, where `object` is null: reading it fails with "
        '"no such key" (or an error from null) and the failure policy decides',
        "guard it: object == null || <check>, or request.operation != 'DELETE' && <check>",
    )


def old_object_on_create(e: Expression, facts: Facts, up: dict[int, Any]) -> Iterator[Hit]:
    """PE104: `oldObject` is null on CREATE (and CONNECT); reading it fails without a guard."""
    yield from _null_read(
        e,
        facts,
        "oldObject",
        {"CREATE", "CONNECT"},
        "the policy matches CREATE, where `oldObject` is null: reading it fails "
        "and the failure policy decides",
        "guard it: oldObject == null || <check>, or request.operation == 'UPDATE' && <check>",
    )


def old_self(e: Expression, facts: Facts, up: dict[int, Any]) -> Iterator[Hit]:
    """PE105: oldSelf belongs to CRD transition rules, not to admission policies."""
    node = first_ident(e.nodes, "oldSelf")
    if node is not None:
        yield (
            node,
            "`oldSelf` exists only in CRD x-kubernetes-validations transition rules; "
            "an admission policy sees the previous object as `oldObject`",
            "use oldObject (null on CREATE: guard it)",
        )


_DECISION_METHODS = frozenset({"allowed", "reason", "errored", "error"})


def authorizer_check(e: Expression, facts: Facts, up: dict[int, Any]) -> Iterator[Hit]:
    """PE106: authorizer...check() returns a Decision, not a bool."""
    for node in e.nodes:
        if not call(node, "check") or not node.call_expr.HasField("target"):
            continue
        parent = up.get(node.id)
        if (
            parent is not None
            and call(parent, *_DECISION_METHODS)
            and parent.call_expr.HasField("target")
            and parent.call_expr.target.id == node.id
        ):
            continue
        yield (
            node,
            "check() returns an authorization Decision, not a bool: compare or return it and the "
            "expression fails with no matching overload",
            "authorizer....check('verb').allowed()",
        )


_ALWAYS_THERE = (
    ["metadata", "name"],
    ["metadata", "namespace"],
    ["metadata", "generateName"],
    ["kind"],
    ["apiVersion"],
)


def failing_message(e: Expression, facts: Facts, up: dict[int, Any]) -> Iterator[Hit]:
    """PE107: a messageExpression that reads optional fields without has() or `?`."""
    if e.context != "messageExpression" or uses_optionals(e.nodes):
        return
    guards = presence_tests(e.nodes)
    seen: set[tuple[str, ...]] = set()
    for node in e.nodes:
        if kind(node) != "select_expr" or node.select_expr.test_only:
            continue
        parent = up.get(node.id)
        if parent is not None and kind(parent) == "select_expr":
            continue  # only the outermost selection of a chain
        path = path_of(node)
        if not path or path[0] not in ROOTS or len(path) < 3 or path[1:] in _ALWAYS_THERE:
            continue
        if any(path[: len(g)] == g or g[: len(path)] == path for g in guards if len(g) >= 3):
            continue
        if any(read[: len(path)] == path for read in e.read_before):
            continue  # the validation read it already (the message runs only after that)
        if tuple(path) in seen:
            continue
        seen.add(tuple(path))
        yield (
            node,
            f"the messageExpression reads {dotted(path)}, which an object may lack: the message "
            "then fails and the API server falls back to `message` (or a generic text)",
            f"has({dotted(path)}) ? ... : '...', or {dotted(path[:2])}.?"
            + ".?".join(path[2:])
            + ".orValue(...)",
        )


_NON_STRING_LITERALS = {"int64_value", "uint64_value", "double_value", "bool_value", "null_value"}


def _stringy(node: Any) -> bool:
    if const_string(node) is not None or call(node, "string"):
        return True
    return call(node, "_+_") and any(_stringy(arg) for arg in node.call_expr.args)


def _non_string(node: Any, facts: Facts) -> str | None:
    """Why node is not a string (a literal, size(), a number field by schema), or None."""
    literal = const_kind(node)
    if literal in _NON_STRING_LITERALS:
        return "a " + literal.split("_")[0].replace("int64", "int").replace("uint64", "uint")
    if call(node, "size", "int", "uint", "double"):
        return f"{node.call_expr.function}() gives a number"
    path = path_of(node)
    if path and path[0] in ("object", "oldObject") and len(path) > 1:
        types = field_types(facts, path[1:])
        if types and types <= {"integer", "number", "boolean"}:
            return f"{dotted(path)} is {'/'.join(sorted(types))} in the schema"
    return None


def string_concat(e: Expression, facts: Facts, up: dict[int, Any]) -> Iterator[Hit]:
    """PE108: 'x' + object.spec.replicas has no overload: CEL never converts implicitly."""
    for node in e.nodes:
        if not call(node, "_+_") or len(node.call_expr.args) != 2:
            continue
        left, right = node.call_expr.args
        for text, other in ((left, right), (right, left)):
            why = _non_string(other, facts) if _stringy(text) else None
            if why:
                yield (
                    other,
                    f"string concatenation with a non-string ({why}): CEL has no implicit "
                    'conversion, so this fails with "no such overload"',
                    "wrap it: string(...)",
                )
                break
