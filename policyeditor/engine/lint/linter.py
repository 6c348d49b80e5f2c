"""lint_document / lint_documents: every rule over every expression of every policy."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from policyeditor.engine.cel.issues import offset_to_line_column
from policyeditor.engine.lint import rules, rules_more
from policyeditor.engine.lint.model import Finding, Rule
from policyeditor.engine.lint.nodes import parents
from policyeditor.engine.lint.sources import Expression, Facts, expressions, facts
from policyeditor.engine.versions import DEFAULT_VERSION, normalize_version

Check = Callable[[Expression, Facts, dict[int, Any]], Iterator[tuple[Any, str, str]]]

RULES: dict[str, tuple[Rule, Check]] = {
    rule.code: (rule, check)
    for rule, check in (
        (
            Rule(
                "PE101",
                "has() on a map key",
                "has(m.key) needs m present and key an identifier",
                "has(m) && 'key' in m",
            ),
            rules.has_on_map_key,
        ),
        (
            Rule(
                "PE102",
                "label or annotation key with dots, slashes or dashes read by field selection",
                "labels.app.kubernetes.io/name parses as selections and a division",
                "labels['app.kubernetes.io/name']",
            ),
            rules.dotted_map_keys,
        ),
        (
            Rule(
                "PE103",
                "object read on DELETE without a guard",
                "object is null on DELETE",
                "object == null || ...",
            ),
            rules.object_on_delete,
        ),
        (
            Rule(
                "PE104",
                "oldObject read on CREATE without a guard",
                "oldObject is null on CREATE",
                "oldObject == null || ...",
            ),
            rules.old_object_on_create,
        ),
        (
            Rule(
                "PE105",
                "oldSelf in an admission policy",
                "oldSelf exists only in CRD transition rules",
                "use oldObject",
            ),
            rules.old_self,
        ),
        (
            Rule(
                "PE106",
                "authorizer check() without allowed()",
                "check() returns a Decision",
                "....check('verb').allowed()",
            ),
            rules.authorizer_check,
        ),
        (
            Rule(
                "PE107",
                "messageExpression that can fail",
                "a failing messageExpression falls back to message",
                "has() or .? with orValue()",
            ),
            rules.failing_message,
        ),
        (
            Rule(
                "PE108",
                "string concatenation with a non-string",
                "CEL never converts implicitly",
                "string(...)",
            ),
            rules.string_concat,
        ),
        (
            Rule(
                "PE109",
                "JSONPatch field that is not op, path, from or value",
                "JSONPatch has four fields",
                "op, path, from, value",
            ),
            rules_more.jsonpatch_fields,
        ),
        (
            Rule(
                "PE110",
                "cost over the per-expression limit for lists of realistic size",
                "the runtime cost limit rejects the request",
                "avoid nested loops",
            ),
            rules_more.cost_limit,
        ),
        (
            Rule(
                "PE111",
                "request.operation compared with a name it never has",
                "operations are upper case",
                "'CREATE', 'UPDATE', 'DELETE', 'CONNECT'",
            ),
            rules_more.operation_names,
        ),
        (
            Rule(
                "PE112",
                "namespaceObject read where it can be null",
                "null for cluster-scoped resources",
                "namespaceObject == null || ...",
            ),
            rules_more.namespace_object,
        ),
        (
            Rule(
                "PE113",
                "resource quantity compared as a string",
                "strings order by characters",
                "quantity(x).compareTo(...)",
            ),
            rules_more.quantity_strings,
        ),
        (
            Rule(
                "PE114",
                "labels or annotations read without a presence test",
                "empty maps are omitted",
                "has(object.metadata.labels) && ...",
            ),
            rules_more.absent_map,
        ),
    )
}


def _position(e: Expression, node: Any) -> tuple[int | None, int | None]:
    offset = e.positions.get(node.id) if node is not None else None
    if offset is None:
        return None, None
    return offset_to_line_column(e.text, offset)


def lint_document(doc: Any, *, version: str = DEFAULT_VERSION) -> list[Finding]:
    """Every pitfall found in one VAP or MAP document (bindings and other kinds have none)."""
    if not isinstance(doc, dict):
        return []
    try:
        version = normalize_version(version)
    except ValueError:
        return []
    try:
        parsed = expressions(doc, version)
        policy = facts(doc, version, parsed) if parsed else None
    except Exception:  # noqa: BLE001 - findings are advice: odd input gives none, never a crash
        return []
    if policy is None:
        return []
    found: list[Finding] = []
    for e in parsed:
        up = parents(e.nodes)
        for rule, check in RULES.values():
            try:
                hits = list(check(e, policy, up))
            except Exception:  # noqa: BLE001 - a rule's bug must not hide the other findings
                continue
            for node, message, fix in hits:
                line, column = _position(e, node)
                found.append(Finding(rule.code, e.path, message, fix, line, column))
    return found


def lint_documents(docs: list[Any], *, version: str = DEFAULT_VERSION) -> list[tuple[int, Finding]]:
    """Findings of a bundle, each with the position of its document."""
    return [
        (position, finding)
        for position, doc in enumerate(docs)
        for finding in lint_document(doc, version=version)
    ]
