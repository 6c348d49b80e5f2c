"""What the YAML editor needs from the server: diagnostics at line and column, schema keys, docs."""

from __future__ import annotations

from typing import Any

from policyeditor.editor import live
from policyeditor.engine import schemas
from policyeditor.engine.errors import InputError
from policyeditor.engine.manifests.loading import load_documents
from policyeditor.engine.manifests.positions import field_positions, locate
from policyeditor.engine.validation import mutating, policy, rules

# The fields whose values are CEL in admission policies (kubernetes/kubernetes
# staging/src/k8s.io/api/admissionregistration/v1/types.go: Validation, AuditAnnotation,
# MatchCondition, Variable; v1beta1 Mutation's ApplyConfiguration and JSONPatch).
CEL_KEYS = ("expression", "messageExpression", "valueExpression")

# The values the API server's validation accepts, by field name (the schemas carry no enums for
# these): the same lists engine.validation checks against, in the API server's words.
ENUMS: dict[str, tuple[str, ...]] = {
    "failurePolicy": rules.SUPPORTED_FAILURE_POLICIES,
    "matchPolicy": rules.SUPPORTED_MATCH_POLICIES,
    "operations": rules.SUPPORTED_OPERATIONS,
    "scope": rules.SUPPORTED_SCOPES,
    "validationActions": rules.VALIDATION_ACTIONS,
    "parameterNotFoundAction": rules.PARAMETER_NOT_FOUND_ACTIONS,
    "reason": policy.SUPPORTED_REASONS,
    "patchType": mutating.SUPPORTED_PATCH_TYPES,
    "reinvocationPolicy": mutating.SUPPORTED_REINVOCATION,
}


def readable(text: str) -> bool:
    """Whether YAML text loads (with every limit) into documents."""
    try:
        load_documents(text, source="YAML")
    except InputError:
        return False
    return True


def diagnostics(report: live.Report, text: str) -> list[dict[str, Any]]:
    """The live report's issues placed at their field's 1-based line and column in `text`."""
    issues = [*report.errors, *report.warnings]
    # Placing needs the text composed with exact positions (pure Python): only when there is
    # something to place.
    positions = field_positions(text, source="YAML") if text and issues else []
    found = []
    for issue in issues:
        where = locate(positions, issue.doc_index, issue.path) if issue.doc_index >= 0 else None
        line, column = where or (1, 1)
        found.append(
            {"line": line, "column": column, "severity": issue.level, "message": issue.text}
        )
    return found


def _schema(api_version: str, kind: str, path: str, version: str) -> dict[str, Any] | None:
    group, _, ver = api_version.rpartition("/")
    root = schemas.schema_for(group, ver, kind, version)
    if root is None:
        return None
    schema = schemas.schema_at_path(root, path, version) if path else root
    schema = schemas.resolve(schema, version)
    if schema and schemas.is_array_schema(schema) and not schemas.is_object_schema(schema):
        schema = schemas.resolve(schemas.items_schema(schema, version), version)
    return schema


def _type(schema: dict[str, Any]) -> str:
    if schemas.is_array_schema(schema):
        return "list"
    types = sorted(schemas.schema_types(schema))
    return "|".join(types) or ("object" if schemas.is_object_schema(schema) else "")


def field_help(api_version: str, kind: str, path: str, version: str) -> dict[str, Any]:
    """The doc of the field at `path` of a kind, its child keys and its allowed values."""
    schema = _schema(api_version, kind, path, version) or {}
    items = []
    for name in sorted(schema.get("properties") or {}):
        child = schemas.resolve(schema["properties"][name], version) or {}
        doc = str(child.get("description") or "").split("\n", 1)[0][:200]
        items.append({"label": name, "type": _type(child), "detail": doc})
    enum = [str(v) for v in schema.get("enum") or [] if isinstance(v, str | int | bool)]
    field = path.rsplit(".", 1)[-1]
    if not enum and field in ENUMS and api_version.startswith("admissionregistration.k8s.io/"):
        enum = [value for value in ENUMS[field] if value != "*"]
    return {
        "doc": str(schema.get("description") or ""),
        "type": _type(schema) if schema else "",
        "items": items,
        "enum": enum,
    }
