"""Policy spec validation shared by VAP and MAP, and the VAP spec.

Rule by rule as kubernetes/kubernetes pkg/apis/admissionregistration/validation/validation.go,
validateValidatingAdmissionPolicySpec does. Input specs are already strictly decoded
(validation.schema): every present field has its schema type, absent and null fields are missing.
"""

from __future__ import annotations

import re
from typing import Any

from policyeditor.engine.apimachinery import (
    child,
    duplicate,
    index,
    invalid,
    not_supported,
    required,
    too_many,
    validate_qualified_name,
)
from policyeditor.engine.cel.syntax.lexer import RESERVED_WORDS
from policyeditor.engine.errors import FieldError
from policyeditor.engine.validation.cel import (
    AUDIT_ANNOTATION,
    MATCH_CONDITION,
    MESSAGE_EXPRESSION,
    VALIDATION,
    VARIABLE,
    CelChecker,
)
from policyeditor.engine.validation.rules import (
    validate_failure_policy,
    validate_match_resources,
    validate_param_kind,
)

MAX_MATCH_CONDITIONS = 64
MAX_AUDIT_ANNOTATIONS = 20
MAX_AUDIT_VALUE_EXPRESSION = 5 * 1024
SUPPORTED_REASONS = ("Forbidden", "Invalid", "RequestEntityTooLarge")

_CEL_IDENT = re.compile(r"[_a-zA-Z][_a-zA-Z0-9]*")


def is_cel_identifier(name: str) -> bool:
    """A CEL IDENT that is not a reserved word."""
    return bool(_CEL_IDENT.fullmatch(name)) and name not in RESERVED_WORDS


def _go_trim(text: str) -> str:
    # strings.TrimSpace trims Unicode white space, as str.strip does.
    return text.strip()


def _has_newlines(text: str) -> bool:
    return "\n" in text or "\r" in text


def validate_match_conditions(
    conditions: list[dict[str, Any]], path: str, checker: CelChecker
) -> list[FieldError]:
    """validateMatchConditions: at most 64, unique qualified names, boolean CEL without variables."""
    errors: list[FieldError] = []
    if len(conditions) > MAX_MATCH_CONDITIONS:
        errors.append(too_many(path, len(conditions), MAX_MATCH_CONDITIONS))
    names: set[str] = set()
    for position, condition in enumerate(conditions):
        at = index(path, position)
        expression = _go_trim(condition.get("expression", ""))
        if not expression:
            errors.append(required(child(at, "expression")))
        else:
            errors += checker.check_field(MATCH_CONDITION, expression, child(at, "expression"))[0]
        name = condition.get("name", "")
        if not name:
            errors.append(required(child(at, "name")))
        else:
            errors.extend(validate_qualified_name(name, child(at, "name")))
            if name in names:
                errors.append(duplicate(child(at, "name"), name))
            names.add(name)
    return errors


def validate_variables(
    variables: list[dict[str, Any]], path: str, checker: CelChecker, unique: bool
) -> list[FieldError]:
    """validateVariable for each, in order (each sees only the variables before it)."""
    errors: list[FieldError] = []
    seen: set[str] = set()
    for position, variable in enumerate(variables):
        at = index(path, position)
        name = variable.get("name", "")
        expression = variable.get("expression", "")
        valid_name = False
        if not _go_trim(name):
            errors.append(required(child(at, "name"), "name is not specified"))
        elif not is_cel_identifier(name):
            errors.append(invalid(child(at, "name"), name, "must be a valid CEL identifier"))
        elif unique and name in seen:
            # VAP variables are listType=map keyed by name.
            errors.append(duplicate(child(at, "name"), name))
        else:
            valid_name = True
        seen.add(name)
        if not _go_trim(expression):
            errors.append(required(child(at, "expression"), "expression is not specified"))
        elif valid_name:
            errors.extend(checker.add_variable(name, expression, child(at, "expression")))
        else:
            # Not declarable under a bad name, but its own errors still count.
            errors += checker.check_field(VARIABLE, expression, child(at, "expression"))[0]
    return errors


def _validate_validation(
    validation: dict[str, Any], at: str, checker: CelChecker
) -> list[FieldError]:
    errors: list[FieldError] = []
    expression = validation.get("expression", "")
    message = validation.get("message", "")
    message_expression = validation.get("messageExpression", "")
    if not _go_trim(expression):
        errors.append(required(child(at, "expression"), "expression is not specified"))
    else:
        errors += checker.check_field(VALIDATION, expression, child(at, "expression"))[0]
    if message_expression and not _go_trim(message_expression):
        errors.append(
            invalid(
                child(at, "messageExpression"), message_expression, "must be non-empty if specified"
            )
        )
    elif _go_trim(message_expression):
        # Compiled untrimmed so that columns match the field's text.
        errors += checker.check_field(
            MESSAGE_EXPRESSION, message_expression, child(at, "messageExpression")
        )[0]
    trimmed_message = _go_trim(message)
    if message and not trimmed_message:
        errors.append(invalid(child(at, "message"), message, "must be non-empty if specified"))
    elif _has_newlines(trimmed_message):
        errors.append(invalid(child(at, "message"), message, "must not contain line breaks"))
    reason = validation.get("reason")
    if reason is not None and reason not in SUPPORTED_REASONS:
        errors.append(not_supported(child(at, "reason"), reason, SUPPORTED_REASONS))
    return errors


def _validate_audit_annotation(
    annotation: dict[str, Any], at: str, policy_name: str, checker: CelChecker
) -> list[FieldError]:
    errors: list[FieldError] = []
    key = annotation.get("key", "")
    if policy_name:
        errors.extend(validate_qualified_name(f"{policy_name}/{key}", child(at, "key")))
    else:
        errors.append(invalid(child(at, "key"), key, "requires metadata.name be non-empty"))
    value_expression = annotation.get("valueExpression", "")
    trimmed = _go_trim(value_expression)
    if not trimmed:
        errors.append(required(child(at, "valueExpression"), "valueExpression is not specified"))
    elif len(trimmed.encode("utf-8", "surrogatepass")) > MAX_AUDIT_VALUE_EXPRESSION:
        # Go reports this as Required, not TooLong.
        errors.append(
            required(
                child(at, "valueExpression"),
                f"must not exceed {MAX_AUDIT_VALUE_EXPRESSION} bytes in length",
            )
        )
    else:
        errors += checker.check_field(
            AUDIT_ANNOTATION, trimmed, child(at, "valueExpression"), original=value_expression
        )[0]
    return errors


def validate_policy_common(spec: dict[str, Any], path: str) -> list[FieldError]:
    """failurePolicy, paramKind and matchConstraints: shared by VAP and MAP."""
    errors = validate_failure_policy(spec.get("failurePolicy"), child(path, "failurePolicy"))
    if "paramKind" in spec:
        errors.extend(validate_param_kind(spec["paramKind"], child(path, "paramKind")))
    constraints = spec.get("matchConstraints")
    if constraints is None:
        errors.append(required(child(path, "matchConstraints")))
    else:
        errors.extend(validate_match_resources(constraints, child(path, "matchConstraints")))
        if not constraints.get("resourceRules"):
            # At least one rule provides the type information.
            errors.append(required(child(path, "matchConstraints", "resourceRules")))
    return errors


def validate_vap_spec(
    spec: dict[str, Any],
    policy_name: str,
    path: str,
    checker: CelChecker,
    skip_match_conditions: bool = False,
) -> list[FieldError]:
    """validateValidatingAdmissionPolicySpec."""
    errors = validate_policy_common(spec, path)
    if not skip_match_conditions:
        errors.extend(
            validate_match_conditions(
                spec.get("matchConditions") or [], child(path, "matchConditions"), checker
            )
        )
    variables = spec.get("variables") or []
    errors.extend(validate_variables(variables, child(path, "variables"), checker, unique=True))
    validations = spec.get("validations") or []
    annotations = spec.get("auditAnnotations") or []
    if not validations and not annotations:
        detail = "validations or auditAnnotations must contain at least one item"
        errors.append(required(child(path, "validations"), detail))
        errors.append(required(child(path, "auditAnnotations"), detail))
        return errors
    for position, validation in enumerate(validations):
        errors.extend(
            _validate_validation(validation, index(child(path, "validations"), position), checker)
        )
    if len(annotations) > MAX_AUDIT_ANNOTATIONS:
        errors.append(
            invalid(
                child(path, "auditAnnotations"),
                annotations,
                f"must not have more than {MAX_AUDIT_ANNOTATIONS} auditAnnotations",
            )
        )
    keys: set[str] = set()
    for position, annotation in enumerate(annotations):
        at = index(child(path, "auditAnnotations"), position)
        errors.extend(_validate_audit_annotation(annotation, at, policy_name, checker))
        key = annotation.get("key", "")
        if key in keys:
            errors.append(duplicate(child(at, "key"), key))
        keys.add(key)
    return errors
