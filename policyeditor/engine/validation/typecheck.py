"""The VAP type-checking controller's warnings, as non-blocking FieldErrors.

Follows kubernetes/kubernetes staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/
validating/typechecking.go, TypeChecker.Check.

Kubernetes type-checks each validation expression and messageExpression against the OpenAPI
schemas of the kinds the policy's matchConstraints name (wildcards and subresources skipped, at
most 10 kinds) and writes `status.typeChecking.expressionWarnings`; the field path is the
warning's fieldRef and the message its text (`apps/v1, Kind=Deployment: ERROR: ...`, one line
per kind).
"""

from __future__ import annotations

from typing import Any

from policyeditor.engine import schemas
from policyeditor.engine.apimachinery import child, index
from policyeditor.engine.cel import schema_check
from policyeditor.engine.cel.model import Context
from policyeditor.engine.errors import FieldError
from policyeditor.engine.objects import group_version_kind

MAX_TYPES_TO_CHECK = 10


def _plain(values: Any) -> list[str] | None:
    """A rule list without wildcards, sorted; None gives up on the rule, as Kubernetes does."""
    if not isinstance(values, list) or not values:
        return None
    if any(not isinstance(value, str) or "*" in value for value in values):
        return None
    return sorted(values)


def types_to_check(spec: dict[str, Any], version: str) -> list[tuple[str, str, str]]:
    """(group, version, kind) of the built-in resources matchConstraints names, at most 10."""
    constraints = spec.get("matchConstraints")
    rules = constraints.get("resourceRules") if isinstance(constraints, dict) else None
    found: list[tuple[str, str, str]] = []
    for rule in rules if isinstance(rules, list) else []:
        if not isinstance(rule, dict):
            continue
        groups, versions = _plain(rule.get("apiGroups")), _plain(rule.get("apiVersions"))
        resources = _plain(rule.get("resources"))
        if groups is None or versions is None or resources is None:
            continue
        for group in groups:
            for api_version in versions:
                for resource in resources:
                    if "/" in resource:
                        continue  # subresources have no schema of their own here
                    info = schemas.kind_for_resource(group, api_version, resource, version)
                    gvk = (group, api_version, info.kind) if info is not None else None
                    if gvk is None or gvk in found:
                        continue
                    found.append(gvk)
                    if len(found) == MAX_TYPES_TO_CHECK:
                        return found
    return found


def _param_schema(spec: dict[str, Any], version: str) -> dict[str, Any] | None:
    gvk = group_version_kind(spec.get("paramKind"))
    return schemas.schema_for(*gvk, version) if gvk is not None else None


def type_check_warnings(spec: dict[str, Any], version: str, declarations: Any) -> list[FieldError]:
    """expressionWarnings of a VAP spec, as the type-checking controller writes them."""
    kinds = types_to_check(spec, version)
    if not kinds:
        return []
    param_schema = _param_schema(spec, version)
    warnings: list[FieldError] = []
    validations = spec.get("validations")
    for position, validation in enumerate(validations if isinstance(validations, list) else []):
        if not isinstance(validation, dict):
            continue
        at = index(child("spec", "validations"), position)
        for field, context in (
            ("expression", Context.VALIDATION),
            ("messageExpression", Context.MESSAGE_EXPRESSION),
        ):
            expression = validation.get(field)
            if not isinstance(expression, str) or not expression.strip():
                continue
            texts = []
            for group, api_version, kind in kinds:
                text = schema_check.type_check_warning(
                    expression,
                    group=group,
                    api_version=api_version,
                    kind=kind,
                    version=version,
                    param_schema=param_schema,
                    context=context,
                    declarations=declarations,
                )
                if text:
                    texts.append(text)
            if texts:
                warnings.append(FieldError(child(at, field), "\n".join(texts)))
    return warnings
