"""What `cel --crd` adds for a custom resource: pruned fields, schema and rule errors, type checks."""

from __future__ import annotations

from typing import Any

from policyeditor.engine import schemas
from policyeditor.engine.cel import crd_rule_evaluation
from policyeditor.engine.cel.schema_check import type_check_warning
from policyeditor.engine.schemas.objects import check_custom_object
from policyeditor.engine.versions import DEFAULT_VERSION


def custom_resource_notes(
    expression: str, obj: Any, params: Any = None, version: str = DEFAULT_VERSION
) -> list[str]:
    """For a custom resource under the CRDs in force: pruned fields, schema errors, type checks."""
    # What `policyeditor cel --crd` and the cel endpoint's `crds` add to the answer's warnings.
    notes: list[str] = []
    check = check_custom_object(obj)
    if not isinstance(obj, dict):
        return notes
    group, _, api_version = str(obj.get("apiVersion") or "").rpartition("/")
    if check is not None:
        notes.extend(check.warnings)
        notes.extend(str(error) for error in check.errors)
        crd_schema = schemas.schema_for(group, api_version, str(obj.get("kind") or ""), version)
        rules = crd_rule_evaluation.errors_after_schema(check.errors, check.object, crd_schema)
        notes.extend(str(error) for error in rules)
    param_schema = None
    if isinstance(params, dict):
        param_group, _, param_version = str(params.get("apiVersion") or "").rpartition("/")
        param_schema = schemas.schema_for(
            param_group, param_version, str(params.get("kind") or ""), version
        )
    warning = type_check_warning(
        expression,
        group=group,
        api_version=api_version,
        kind=str(obj.get("kind") or ""),
        version=version,
        param_schema=param_schema,
    )
    if warning:
        notes.append(warning)
    return notes
