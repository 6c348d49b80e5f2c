"""More pitfalls: JSONPatch fields, cost, operation names, namespaceObject, quantities, absent
maps (PE109-PE114)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from policyeditor.engine.cel import COST_LIMIT_MESSAGE, PER_CALL_LIMIT
from policyeditor.engine.cel.cost import estimate
from policyeditor.engine.lint.nodes import (
    INDEX,
    call,
    const_string,
    dotted,
    kind,
    null_compared,
    path_of,
    presence_tests,
    uses_optionals,
)
from policyeditor.engine.lint.rules import Hit
from policyeditor.engine.lint.sources import OPERATIONS, Expression, Facts

# kubernetes/kubernetes staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/mutating/patch/
# json_patch.go (JSONPatch type: op, path, from, value).
JSONPATCH_FIELDS = frozenset({"op", "path", "from", "value"})
# A list of unknown size is assumed to hold this many elements: a realistic upper size for
# containers, env entries, rules or ports of one object.
REALISTIC_LIST_SIZE = 1000


def jsonpatch_fields(e: Expression, facts: Facts, up: dict[int, Any]) -> Iterator[Hit]:
    """PE109: JSONPatch{...} takes only op, path, from and value."""
    for node in e.nodes:
        if kind(node) != "struct_expr" or not node.struct_expr.message_name.endswith("JSONPatch"):
            continue
        for entry in node.struct_expr.entries:
            name = entry.field_key
            if entry.HasField("map_key") or name in JSONPATCH_FIELDS:
                continue
            yield (
                entry.value,
                f"JSONPatch has no field {name!r}: its fields are op, path, from and value",
                "rename the field to one of op, path, from, value",
            )


def cost_limit(e: Expression, facts: Facts, up: dict[int, Any]) -> Iterator[Hit]:
    """PE110: nested loops over lists of realistic size exceed the per-expression cost limit."""
    cost = estimate(e.root, REALISTIC_LIST_SIZE)
    if cost <= PER_CALL_LIMIT:
        return
    node = next((n for n in e.nodes if kind(n) == "comprehension_expr"), e.root)
    yield (
        node,
        f"estimated cost {cost:,} with lists of {REALISTIC_LIST_SIZE:,} elements exceeds the "
        f"per-expression limit of {PER_CALL_LIMIT:,} of Kubernetes {facts.version}: such objects "
        f'are rejected at runtime with "{COST_LIMIT_MESSAGE}"',
        "avoid nested loops over the same lists (build a set or map in a variable first), or "
        "bound the list with a maxItems the loop can rely on",
    )


def operation_names(e: Expression, facts: Facts, up: dict[int, Any]) -> Iterator[Hit]:
    """PE111: request.operation is CREATE, UPDATE, DELETE or CONNECT, in capitals."""
    for node in e.nodes:
        if not call(node, "_==_", "_!=_", "@in") or len(node.call_expr.args) != 2:
            continue
        left, right = node.call_expr.args
        if path_of(left) != ["request", "operation"] and path_of(right) != ["request", "operation"]:
            continue
        other = right if path_of(left) == ["request", "operation"] else left
        values = list(other.list_expr.elements) if kind(other) == "list_expr" else [other]
        for value in values:
            text = const_string(value)
            if text is not None and text not in OPERATIONS:
                good = text.upper() if text.upper() in OPERATIONS else "CREATE"
                yield (
                    value,
                    f"request.operation is never {text!r}: the API server sends CREATE, UPDATE, "
                    "DELETE or CONNECT",
                    f"{good!r}",
                )


def namespace_object(e: Expression, facts: Facts, up: dict[int, Any]) -> Iterator[Hit]:
    """PE112: namespaceObject is null for cluster-scoped resources (and Namespaces)."""
    if not facts.cluster_scoped_possible or null_compared(e.nodes, "namespaceObject"):
        return
    for node in e.nodes:
        path = path_of(node)
        if path and path[0] == "namespaceObject" and len(path) > 1 and kind(node) == "select_expr":
            yield (
                node,
                "namespaceObject is null for cluster-scoped resources, which this policy may "
                "match: reading it fails there",
                "namespaceObject == null || <check>, or scope: Namespaced in the resourceRules",
            )
            return


_ORDERING = frozenset({"_<_", "_<=_", "_>_", "_>=_"})
_QUANTITY_HOLDERS = frozenset({"limits", "requests", "capacity", "allocatable", "hard", "used"})


def _quantity_field(node: Any) -> bool:
    path = path_of(node)
    return path is not None and len(path) > 2 and path[-2] in _QUANTITY_HOLDERS


def quantity_strings(e: Expression, facts: Facts, up: dict[int, Any]) -> Iterator[Hit]:
    """PE113: quantities compared as strings ('500m' > '2' is true)."""
    for node in e.nodes:
        if not call(node, *_ORDERING) or len(node.call_expr.args) != 2:
            continue
        left, right = node.call_expr.args
        if any(_quantity_field(arg) for arg in (left, right)):
            yield (
                node,
                "a resource quantity compared as a string: ordering is by characters, "
                "so '500m' > '2' holds and '1Gi' < '512Mi'",
                "quantity(x).compareTo(quantity('1Gi')) < 0, or quantity(x).isLessThan(...)",
            )


def absent_map(e: Expression, facts: Facts, up: dict[int, Any]) -> Iterator[Hit]:
    """PE114: metadata.labels/annotations may be absent: `in` and [] on them fail then."""
    if uses_optionals(e.nodes):
        return
    guards = presence_tests(e.nodes)
    for node in e.nodes:
        if call(node, "@in") and len(node.call_expr.args) == 2:
            holder = node.call_expr.args[1]
        elif call(node, INDEX) and len(node.call_expr.args) == 2:
            holder = node.call_expr.args[0]
        else:
            continue
        path = path_of(holder)
        if (
            not path
            or path[0] not in ("object", "oldObject")
            or path[1:] not in (["metadata", "labels"], ["metadata", "annotations"])
        ):
            continue
        if any(g == path for g in guards) or null_compared(e.nodes, path[-1]):
            continue
        yield (
            holder,
            f"{dotted(path)} is absent on objects without {path[-1]} (the field is omitted "
            'when empty): `in` and [] on it fail with "no such key"',
            f"has({dotted(path)}) && ..., or {dotted(path[:2])}.?{path[2]}.orValue({{}})",
        )
        return
