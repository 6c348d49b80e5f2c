"""MutatingAdmissionPolicy spec validation: mutations, patch types, reinvocation.

Follows kubernetes/kubernetes pkg/apis/admissionregistration/validation/validation.go,
validateMutatingAdmissionPolicySpec and validateMutation.
"""

from __future__ import annotations

from typing import Any

from policyeditor.engine.apimachinery import child, index, invalid, not_supported, required
from policyeditor.engine.errors import FieldError
from policyeditor.engine.validation.cel import APPLY_CONFIGURATION, JSON_PATCH, CelChecker
from policyeditor.engine.validation.policy import (
    validate_match_conditions,
    validate_policy_common,
    validate_variables,
)
from policyeditor.engine.validation.rules import validate_mutating_operations

SUPPORTED_PATCH_TYPES = ("ApplyConfiguration", "JSONPatch")
SUPPORTED_REINVOCATION = ("IfNeeded", "Never")


def _go_trim(text: str) -> str:
    return text.strip()


def _validate_patch_expression(
    body: dict[str, Any], at: str, checker: CelChecker, apply: bool
) -> list[FieldError]:
    expression = body.get("expression", "")
    trimmed = _go_trim(expression)
    if not trimmed:
        return [required(child(at, "expression"))]
    kind = APPLY_CONFIGURATION if apply else JSON_PATCH
    return checker.check_field(
        kind, trimmed, child(at, "expression"), original=expression, shown=trimmed
    )[0]


def _validate_mutation(mutation: dict[str, Any], at: str, checker: CelChecker) -> list[FieldError]:
    patch_type = mutation.get("patchType", "")
    apply = mutation.get("applyConfiguration")
    json_patch = mutation.get("jsonPatch")
    errors: list[FieldError] = []
    if not patch_type:
        errors.append(required(child(at, "patchType")))
    elif patch_type == "JSONPatch":
        if json_patch is None:
            errors.append(
                required(child(at, "jsonPatch"), "must be specified when patchType is JSONPatch")
            )
        else:
            errors.extend(
                _validate_patch_expression(json_patch, child(at, "jsonPatch"), checker, apply=False)
            )
        if apply is not None:
            errors.append(
                invalid(
                    child(at, "applyConfiguration"),
                    "{applyConfiguration}",
                    "must not be specified when patchType is JSONPatch",
                )
            )
    elif patch_type == "ApplyConfiguration":
        if apply is None:
            errors.append(
                required(
                    child(at, "applyConfiguration"),
                    "must be specified when patchType is ApplyConfiguration",
                )
            )
        else:
            errors.extend(
                _validate_patch_expression(
                    apply, child(at, "applyConfiguration"), checker, apply=True
                )
            )
        if json_patch is not None:
            errors.append(
                invalid(
                    child(at, "jsonPatch"),
                    "{jsonPatch}",
                    "must not be specified when patchType is ApplyConfiguration",
                )
            )
    else:
        errors.append(not_supported(child(at, "patchType"), patch_type, SUPPORTED_PATCH_TYPES))
    return errors


def validate_map_spec(
    spec: dict[str, Any], path: str, checker: CelChecker, skip_match_conditions: bool = False
) -> list[FieldError]:
    """validateMutatingAdmissionPolicySpec."""
    errors = validate_policy_common(spec, path)
    if spec.get("matchConstraints") is not None:
        errors.extend(
            validate_mutating_operations(spec["matchConstraints"], child(path, "matchConstraints"))
        )
    if not skip_match_conditions:
        errors.extend(
            validate_match_conditions(
                spec.get("matchConditions") or [], child(path, "matchConditions"), checker
            )
        )
    # MAP variables are listType=atomic: names need not be unique.
    errors.extend(
        validate_variables(
            spec.get("variables") or [], child(path, "variables"), checker, unique=False
        )
    )
    mutations = spec.get("mutations") or []
    if not mutations:
        errors.append(
            required(child(path, "mutations"), "mutations must contain at least one item")
        )
    for position, mutation in enumerate(mutations):
        errors.extend(
            _validate_mutation(mutation, index(child(path, "mutations"), position), checker)
        )
    reinvocation = spec.get("reinvocationPolicy", "")
    if not reinvocation:
        errors.append(required(child(path, "reinvocationPolicy")))
    elif reinvocation not in SUPPORTED_REINVOCATION:
        errors.append(
            not_supported(child(path, "reinvocationPolicy"), reinvocation, SUPPORTED_REINVOCATION)
        )
    return errors
