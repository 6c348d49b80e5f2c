"""Schema-aware type checking (kubernetes/kubernetes staging/src/k8s.io/apiserver/pkg/admission/
plugin/policy/validating/typechecking.go, TypeChecker.Check): the warnings Kubernetes writes to
`status.typeChecking.expressionWarnings`, found by walking the checked AST with the OpenAPI schema
of the target kind (admission itself stays schemaless; these never block anything)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from policyeditor.engine.cel.compiler import compile_expression
from policyeditor.engine.cel.issues import CelIssue, offset_to_line_column, snippet_for
from policyeditor.engine.cel.model import NO_DECLARATIONS, Context, Declarations, EnvType
from policyeditor.engine.versions import DEFAULT_VERSION

_COMPARISONS = {"_==_", "_!=_", "_<_", "_<=_", "_>_", "_>=_"}
_ORDERING = {"_<_", "_<=_", "_>_", "_>=_"}
_CONST_TYPES = {
    "int64_value": "int",
    "uint64_value": "uint",
    "double_value": "double",
    "string_value": "string",
    "bool_value": "bool",
    "bytes_value": "bytes",
}
_NUMERIC = {"int", "uint", "double"}


_Schema = dict[str, Any] | None


@dataclass
class _Schemas:
    """The schema lookups of schemas.openapi, bound to one Kubernetes version."""

    version: str
    resolve: Callable[[_Schema], _Schema]
    child: Callable[[_Schema, str], _Schema]
    items: Callable[[_Schema], _Schema]


def _load_schemas(version: str) -> _Schemas:
    from policyeditor.engine import schemas

    return _Schemas(
        version=version,
        resolve=lambda s: schemas.resolve(s, version),
        child=lambda s, f: schemas.child_schema(s, f, version),
        items=lambda s: schemas.items_schema(s, version),
    )


def _cel_type(schema: dict[str, Any] | None) -> str:
    """The CEL type Kubernetes gives a schema in typed environments ("dyn" when open)."""
    if (
        not schema
        or schema.get("x-kubernetes-int-or-string")
        or schema.get("x-kubernetes-preserve-unknown-fields")
    ):
        return "dyn"
    raw = schema.get("type")
    types = {raw} if isinstance(raw, str) else set(raw or ())
    types.discard("null")
    if len(types) != 1:
        return "dyn"
    kind = types.pop()
    if kind == "integer":
        return "int"
    if kind == "number":
        return "double"
    if kind == "boolean":
        return "bool"
    if kind == "string":
        return {
            "date-time": "google.protobuf.Timestamp",
            "date": "google.protobuf.Timestamp",
            "duration": "google.protobuf.Duration",
            "byte": "bytes",
        }.get(schema.get("format", ""), "string")
    return kind  # "object" / "array"


def _is_closed_struct(schema: dict[str, Any] | None) -> bool:
    if not schema:
        return False
    return (
        isinstance(schema.get("properties"), dict)
        and "additionalProperties" not in schema
        and not schema.get("x-kubernetes-preserve-unknown-fields")
    )


class _Walker:
    def __init__(
        self, checked: Any, roots: dict[str, dict[str, Any] | None], schemas: _Schemas
    ) -> None:
        self.checked = checked
        self.roots = roots
        self.schemas = schemas
        self.findings: list[tuple[int, str]] = []

    def schema(self, expr: Any, scope: dict[str, dict[str, Any] | None]) -> dict[str, Any] | None:
        """The schema of expr's value (None when unknown), reporting problems on the way."""
        kind = expr.WhichOneof("expr_kind")
        if kind == "ident_expr":
            name = expr.ident_expr.name
            return scope[name] if name in scope else self.roots.get(name)
        if kind == "select_expr":
            parent = self.schema(expr.select_expr.operand, scope)
            return self._field(expr, parent, expr.select_expr.field)
        if kind == "call_expr":
            return self._call(expr, scope)
        if kind == "comprehension_expr":
            return self._comprehension(expr, scope)
        for child in _children(expr):
            self.schema(child, scope)
        return None

    def _field(self, expr: Any, parent: dict[str, Any] | None, field: str) -> dict[str, Any] | None:
        parent = self.schemas.resolve(parent) if parent else None
        if not parent:
            return None
        if _is_closed_struct(parent) and field not in parent["properties"]:
            self.findings.append((expr.id, f"undefined field '{field}'"))
            return None
        return self.schemas.child(parent, field)

    def _call(self, expr: Any, scope: dict[str, dict[str, Any] | None]) -> dict[str, Any] | None:
        call = expr.call_expr
        if call.HasField("target"):
            self.schema(call.target, scope)
        args = [self.schema(arg, scope) for arg in call.args]
        if call.function in ("_[_]", "_[?_]") and len(args) == 2:
            container = self.schemas.resolve(args[0]) if args[0] else None
            if container and _cel_type(container) == "array":
                return self.schemas.items(container)
            if container and "additionalProperties" in container:
                return self.schemas.child(container, "")
            return None
        if call.function in _COMPARISONS and len(call.args) == 2:
            self._compare(expr, call, args)
        return None

    def _compare(self, expr: Any, call: Any, schemas: list[dict[str, Any] | None]) -> None:
        types = []
        for arg, schema in zip(call.args, schemas, strict=True):
            if arg.WhichOneof("expr_kind") == "const_expr":
                types.append(
                    _CONST_TYPES.get(arg.const_expr.WhichOneof("constant_kind") or "", "dyn")
                )
            elif schema is not None:
                t = _cel_type(self.schemas.resolve(schema))
                types.append(t if t not in ("object", "array") else "dyn")
            else:
                types.append("dyn")
        left, right = types
        if "dyn" in (left, right) or left == right:
            return
        if call.function in _ORDERING and left in _NUMERIC and right in _NUMERIC:
            return
        self.findings.append(
            (
                expr.id,
                f"found no matching overload for '{call.function}' applied to '({left}, {right})'",
            )
        )

    def _comprehension(
        self, expr: Any, scope: dict[str, dict[str, Any] | None]
    ) -> dict[str, Any] | None:
        comp = expr.comprehension_expr
        range_schema = self.schema(comp.iter_range, scope)
        resolved = self.schemas.resolve(range_schema) if range_schema else None
        inner = dict(scope)
        element = None
        if resolved and _cel_type(resolved) == "array":
            element = self.schemas.items(resolved)
            if comp.iter_var2:
                inner[comp.iter_var] = None
                inner[comp.iter_var2] = element
            else:
                inner[comp.iter_var] = element
        elif resolved:
            value = self.schemas.child(resolved, "") if "additionalProperties" in resolved else None
            inner[comp.iter_var] = None
            if comp.iter_var2:
                inner[comp.iter_var2] = value
        else:
            inner[comp.iter_var] = None
            if comp.iter_var2:
                inner[comp.iter_var2] = None
        inner[comp.accu_var] = None
        self.schema(comp.accu_init, scope)
        for part in (comp.loop_condition, comp.loop_step, comp.result):
            self.schema(part, inner)
        return None


def _children(expr: Any) -> Iterator[Any]:
    from policyeditor.engine.cel.syntax.walk import children

    return children(expr)


def plain_schemas(version: str = DEFAULT_VERSION) -> _Schemas:
    """Lookups in self-contained schemas (no $ref), such as a CRD rule's view of its node."""

    def child(schema: _Schema, field: str) -> _Schema:
        properties = (schema or {}).get("properties")
        if isinstance(properties, dict) and field in properties:
            found = properties[field]
            return found if isinstance(found, dict) else None
        extra = (schema or {}).get("additionalProperties")
        return extra if isinstance(extra, dict) else None

    def items(schema: _Schema) -> _Schema:
        found = (schema or {}).get("items")
        return found if isinstance(found, dict) else None

    return _Schemas(version=version, resolve=lambda s: s, child=child, items=items)


def check_roots(
    expression: str,
    roots: dict[str, dict[str, Any] | None],
    *,
    context: Context,
    version: str = DEFAULT_VERSION,
    declarations: Declarations = NO_DECLARATIONS,
    env_type: EnvType = EnvType.STORED_EXPRESSIONS,
    lookups: _Schemas | None = None,
) -> list[CelIssue]:
    """Problems found with each root variable typed by its schema (none if it does not compile)."""
    compiled = compile_expression(
        expression,
        context=context,
        version=version,
        declarations=declarations,
        env_type=env_type,
    )
    if not compiled.ok:
        return []
    checked = compiled.program.checked
    walker = _Walker(checked, roots, lookups or _load_schemas(version))
    walker.schema(checked.expr, {})
    positions = checked.source_info.positions
    issues = []
    for node_id, message in walker.findings:
        offset = positions.get(node_id)
        if offset is None:
            issues.append(CelIssue(message, phase="typecheck"))
            continue
        offset = compiled.program.to_original(offset)
        line, column = offset_to_line_column(expression, offset)
        issues.append(
            CelIssue(
                message, line, column, snippet_for(expression, line, column), phase="typecheck"
            )
        )
    return issues


def result_type(
    expression: str,
    roots: dict[str, dict[str, Any] | None],
    *,
    context: Context,
    version: str = DEFAULT_VERSION,
    env_type: EnvType = EnvType.STORED_EXPRESSIONS,
    lookups: _Schemas | None = None,
) -> str | None:
    """The CEL type of expression's result with the roots typed (None when not known).

    The checker's type, or for a `dyn` result read from a root, the type of the field's schema.
    """
    compiled = compile_expression(expression, context=context, version=version, env_type=env_type)
    if not compiled.ok:
        return None
    if compiled.output_type != "dyn":
        return compiled.output_type
    checked = compiled.program.checked
    schemas = lookups or _load_schemas(version)
    schema = _Walker(checked, roots, schemas).schema(checked.expr, {})
    return _cel_type(schemas.resolve(schema)) if schema is not None else None


def type_check(
    expression: str,
    *,
    object_schema: dict[str, Any] | None,
    param_schema: dict[str, Any] | None = None,
    context: Context = Context.VALIDATION,
    version: str = DEFAULT_VERSION,
    declarations: Declarations = NO_DECLARATIONS,
) -> list[CelIssue]:
    """Problems a schema-typed environment finds in expression (none if it does not compile)."""
    roots = {"object": object_schema, "oldObject": object_schema, "params": param_schema}
    return check_roots(
        expression, roots, context=context, version=version, declarations=declarations
    )


def type_check_warning(
    expression: str,
    *,
    group: str,
    api_version: str,
    kind: str,
    version: str = DEFAULT_VERSION,
    param_schema: dict[str, Any] | None = None,
    context: Context = Context.VALIDATION,
    declarations: Declarations = NO_DECLARATIONS,
) -> str | None:
    """The expressionWarnings text for one GVK (`apps/v1, Kind=Deployment: ERROR: ...`), or None."""
    from policyeditor.engine import schemas

    schema = schemas.schema_for(group, api_version, kind, version)
    if schema is None:
        return None
    issues = type_check(
        expression,
        object_schema=schema,
        param_schema=param_schema,
        context=context,
        version=version,
        declarations=declarations,
    )
    if not issues:
        return None
    gv = f"{group}/{api_version}" if group else api_version
    return f"{gv}, Kind={kind}: " + "\n".join(str(issue) for issue in issues)
