"""What the linter reads from a policy: its expressions (with field paths) and the facts
around them (matched operations, scope, the schemas of the matched kinds)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from policyeditor.engine import schemas
from policyeditor.engine.cel import parse_expression
from policyeditor.engine.cel.syntax.walk import walk
from policyeditor.engine.lint.nodes import kind, null_compared, path_of, reads_operation
from policyeditor.engine.objects import MUTATING_KINDS, POLICY_KINDS

OPERATIONS = frozenset({"CREATE", "UPDATE", "DELETE", "CONNECT"})


@dataclass
class Expression:
    """One CEL expression of a policy: where it is, what kind of field, its parsed AST."""

    path: str
    context: str  # matchCondition | variable | validation | messageExpression | ...
    text: str
    root: Any
    positions: dict[int, int]
    # Field paths the validation's own expression reads: a messageExpression runs only after
    # that expression evaluated to false, so these paths were there.
    read_before: list[list[str]] = field(default_factory=list)
    # The AST's nodes, parents first: every rule looks at all of them, so the walk is done once.
    nodes: list[Any] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.nodes = list(walk(self.root))


@dataclass
class Facts:
    """What the policy around the expressions promises."""

    kind: str
    version: str
    operations: frozenset[str] = frozenset()
    # True when a match condition already looks at request.operation or compares with null.
    match_conditions_guard: bool = False
    cluster_scoped_possible: bool = True
    object_schemas: list[dict[str, Any]] = field(default_factory=list)

    @property
    def mutating(self) -> bool:
        return self.kind in MUTATING_KINDS


def _strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _expressions(spec: dict[str, Any]) -> list[tuple[str, str, Any]]:
    """(field path, context, text) of every expression in a VAP or MAP spec."""
    found: list[tuple[str, str, Any]] = []

    def items(name: str) -> list[tuple[int, dict[str, Any]]]:
        value = spec.get(name)
        if not isinstance(value, list):
            return []
        return [(i, item) for i, item in enumerate(value) if isinstance(item, dict)]

    for i, item in items("matchConditions"):
        found.append(
            (f"spec.matchConditions[{i}].expression", "matchCondition", item.get("expression"))
        )
    for i, item in items("variables"):
        found.append((f"spec.variables[{i}].expression", "variable", item.get("expression")))
    for i, item in items("validations"):
        found.append((f"spec.validations[{i}].expression", "validation", item.get("expression")))
        found.append(
            (
                f"spec.validations[{i}].messageExpression",
                "messageExpression",
                item.get("messageExpression"),
            )
        )
    for i, item in items("auditAnnotations"):
        found.append(
            (
                f"spec.auditAnnotations[{i}].valueExpression",
                "auditAnnotation",
                item.get("valueExpression"),
            )
        )
    for i, item in items("mutations"):
        for part, context in (
            ("applyConfiguration", "applyConfiguration"),
            ("jsonPatch", "jsonPatch"),
        ):
            body = item.get(part)
            if isinstance(body, dict):
                found.append(
                    (f"spec.mutations[{i}].{part}.expression", context, body.get("expression"))
                )
    return found


def expressions(doc: dict[str, Any], version: str) -> list[Expression]:
    """The parsable expressions of a policy document (none for bindings and other kinds)."""
    spec = doc.get("spec")
    if doc.get("kind") not in POLICY_KINDS or not isinstance(spec, dict):
        return []
    found: list[Expression] = []
    for path, context, text in _expressions(spec):
        if not isinstance(text, str) or not text.strip():
            continue
        parsed = parse_expression(text, version=version)
        if parsed is None:
            continue  # a syntax error: validation reports it
        expression = Expression(
            path, context, text, parsed.expr, dict(parsed.source_info.positions)
        )
        if context == "messageExpression":
            sibling = path.rsplit(".", 1)[0] + ".expression"
            for other in found:
                if other.path == sibling:
                    expression.read_before = read_paths(other.nodes)
        found.append(expression)
    return found


def read_paths(nodes: list[Any]) -> list[list[str]]:
    """Every field path an expression's nodes read (the whole chain of each selection)."""
    return [
        path
        for node in nodes
        if kind(node) == "select_expr" and not node.select_expr.test_only
        for path in [path_of(node)]
        if path is not None
    ]


def facts(doc: dict[str, Any], version: str, parsed: list[Expression]) -> Facts:
    """The operations, scope and object schemas of a policy's matchConstraints."""
    spec = doc.get("spec") if isinstance(doc.get("spec"), dict) else {}
    constraints = spec.get("matchConstraints") if isinstance(spec, dict) else None
    rules = constraints.get("resourceRules") if isinstance(constraints, dict) else None
    operations: set[str] = set()
    scoped_only = True
    found_schemas: list[dict[str, Any]] = []
    for rule in rules if isinstance(rules, list) else []:
        if not isinstance(rule, dict):
            continue
        ops = _strings(rule.get("operations"))
        operations |= set(OPERATIONS) if "*" in ops else {op for op in ops if op in OPERATIONS}
        if rule.get("scope") != "Namespaced" and _may_hold_cluster_scoped(rule, version):
            scoped_only = False
        found_schemas += _rule_schemas(rule, version, len(found_schemas))
    guard = any(
        e.context == "matchCondition"
        and (
            reads_operation(e.nodes)
            or null_compared(e.nodes, "object")
            or null_compared(e.nodes, "oldObject")
        )
        for e in parsed
    )
    return Facts(
        kind=str(doc.get("kind")),
        version=version,
        operations=frozenset(operations),
        match_conditions_guard=guard,
        cluster_scoped_possible=not scoped_only or not operations,
        object_schemas=found_schemas,
    )


def _may_hold_cluster_scoped(rule: dict[str, Any], version: str) -> bool:
    """False only when every resource the rule names is a known namespaced one."""
    for group in _strings(rule.get("apiGroups")) or ["*"]:
        for api_version in _strings(rule.get("apiVersions")) or ["*"]:
            for resource in _strings(rule.get("resources")) or ["*"]:
                if "*" in group + api_version + resource:
                    return True
                info = schemas.kind_for_resource(group, api_version, resource, version)
                if info is None or not info.namespaced:
                    return True
    return False


def _rule_schemas(rule: dict[str, Any], version: str, have: int) -> list[dict[str, Any]]:
    """Schemas of the built-in kinds a rule names without wildcards (at most 10 in all)."""
    found: list[dict[str, Any]] = []
    for group in _strings(rule.get("apiGroups")):
        for api_version in _strings(rule.get("apiVersions")):
            for resource in _strings(rule.get("resources")):
                if (
                    "*" in group + api_version + resource
                    or "/" in resource
                    or have + len(found) >= 10
                ):
                    continue
                info = schemas.kind_for_resource(group, api_version, resource, version)
                schema = (
                    schemas.schema_for(group, api_version, info.kind, version) if info else None
                )
                if schema is not None:
                    found.append(schema)
    return found


def field_types(facts: Facts, path: list[str]) -> set[str]:
    """The JSON types the matched kinds' schemas give object.<path> (empty when unknown)."""
    found: set[str] = set()
    for root in facts.object_schemas:
        schema = schemas.schema_at_path(root, path, facts.version)
        found |= schemas.schema_types(schema)
    return found
