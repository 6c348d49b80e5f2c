"""Validation of the shared sub-structures: MatchResources, rules, ParamKind, ParamRef, actions."""

from __future__ import annotations

from typing import Any

from policyeditor.engine.apimachinery import (
    child,
    duplicate,
    forbidden,
    index,
    invalid,
    is_dns1035_label,
    is_dns1123_subdomain,
    is_path_segment_name,
    name_is_dns_subdomain,
    not_supported,
    required,
    validate_label_selector,
)
from policyeditor.engine.errors import FieldError

SUPPORTED_OPERATIONS = ("*", "CONNECT", "CREATE", "DELETE", "UPDATE")  # sets.List() is sorted
MUTATING_OPERATIONS = ("*", "CONNECT", "CREATE", "UPDATE")
SUPPORTED_SCOPES = ("*", "Cluster", "Namespaced")
SUPPORTED_MATCH_POLICIES = ("Equivalent", "Exact")
SUPPORTED_FAILURE_POLICIES = ("Fail", "Ignore")
VALIDATION_ACTIONS = ("Audit", "Deny", "Warn")
PARAMETER_NOT_FOUND_ACTIONS = ("Deny", "Allow")  # Go passes this list unsorted


def _validate_resources(resources: list[str], path: str) -> list[FieldError]:
    """validateResources: wildcard and subresource overlap rules, a sequential scan."""
    errors: list[FieldError] = []
    if not resources:
        errors.append(required(path))
    with_wildcard_sub: set[str] = set()  # x/*
    sub_with_wildcard_res: set[str] = set()  # */x
    has_double = has_single = has_plain = False
    for position, resource in enumerate(resources):
        if resource == "":
            errors.append(required(index(path, position)))
            continue
        if resource == "*/*":
            has_double = True
        if resource == "*":
            has_single = True
        if "/" not in resource:
            # Go assigns rather than ORs: only the last plain entry decides.
            has_plain = resource != "*"
            continue
        res, sub = resource.split("/", 1)
        if res in with_wildcard_sub:
            errors.append(
                invalid(
                    index(path, position),
                    resource,
                    f"if '{res}/*' is present, must not specify {resource}",
                )
            )
        if sub in sub_with_wildcard_res:
            errors.append(
                invalid(
                    index(path, position),
                    resource,
                    f"if '*/{sub}' is present, must not specify {resource}",
                )
            )
        if sub == "*":
            with_wildcard_sub.add(res)
        if res == "*":
            sub_with_wildcard_res.add(sub)
    if len(resources) > 1 and has_double:
        errors.append(
            invalid(path, resources, "if '*/*' is present, must not specify other resources")
        )
    if has_single and has_plain:
        errors.append(
            invalid(
                path,
                resources,
                "if '*' is present, must not specify other resources without subresources",
            )
        )
    return errors


def _star_alone(values: list[Any], at: str, what: str) -> list[FieldError]:
    """'*' must be the only value of the list when it is there."""
    if len(values) > 1 and "*" in values:
        return [invalid(at, values, f"if '*' is present, must not specify other {what}")]
    return []


def _validate_rule(rule: dict[str, Any], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    groups = rule.get("apiGroups") or []
    versions = rule.get("apiVersions") or []
    if not groups:
        errors.append(required(child(path, "apiGroups")))
    errors.extend(_star_alone(groups, child(path, "apiGroups"), "API groups"))
    if not versions:
        errors.append(required(child(path, "apiVersions")))
    errors.extend(_star_alone(versions, child(path, "apiVersions"), "API versions"))
    for position, version in enumerate(versions):
        if version == "":
            errors.append(required(index(child(path, "apiVersions"), position)))
    errors.extend(_validate_resources(rule.get("resources") or [], child(path, "resources")))
    scope = rule.get("scope")
    if scope is not None and scope not in SUPPORTED_SCOPES:
        errors.append(not_supported(child(path, "scope"), scope, SUPPORTED_SCOPES))
    return errors


def _validate_rule_with_operations(rule: dict[str, Any], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    operations = rule.get("operations") or []
    if not operations:
        errors.append(required(child(path, "operations")))
    errors.extend(_star_alone(operations, child(path, "operations"), "operations"))
    for position, operation in enumerate(operations):
        if operation not in SUPPORTED_OPERATIONS:
            errors.append(
                not_supported(
                    index(child(path, "operations"), position), operation, SUPPORTED_OPERATIONS
                )
            )
    return errors + _validate_rule(rule, path)


def _validate_named_rule(rule: dict[str, Any], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    seen: set[str] = set()
    for position, name in enumerate(rule.get("resourceNames") or []):
        at = index(child(path, "resourceNames"), position)
        errors.extend(invalid(at, name, msg) for msg in is_path_segment_name(name))
        if name in seen:
            errors.append(duplicate(at, name))
        seen.add(name)
    return errors + _validate_rule_with_operations(rule, path)


def validate_match_resources(match: dict[str, Any] | None, path: str) -> list[FieldError]:
    """validateMatchResources (policy matchConstraints and binding matchResources)."""
    if match is None:
        return []
    errors: list[FieldError] = []
    policy = match.get("matchPolicy")
    if policy is None:
        errors.append(required(child(path, "matchPolicy")))
    elif policy not in SUPPORTED_MATCH_POLICIES:
        errors.append(not_supported(child(path, "matchPolicy"), policy, SUPPORTED_MATCH_POLICIES))
    for selector in ("namespaceSelector", "objectSelector"):
        if match.get(selector) is None:
            errors.append(required(child(path, selector)))
        else:
            errors.extend(validate_label_selector(match[selector], child(path, selector)))
    for list_name in ("resourceRules", "excludeResourceRules"):
        for position, rule in enumerate(match.get(list_name) or []):
            errors.extend(_validate_named_rule(rule, index(child(path, list_name), position)))
    return errors


def validate_mutating_operations(match: dict[str, Any] | None, path: str) -> list[FieldError]:
    """MAP and MAPB: DELETE cannot be mutated (reported without an index, as Go does)."""
    errors = []
    for rule in (match or {}).get("resourceRules") or []:
        for operation in rule.get("operations") or []:
            if operation not in MUTATING_OPERATIONS:
                errors.append(
                    not_supported(
                        child(path, "resourceRules", "operations"), operation, MUTATING_OPERATIONS
                    )
                )
    return errors


def _parse_group_version(text: str) -> tuple[str, str] | str:
    """parseGroupVersion: (group, version) or the error text."""
    if text in ("", "/"):
        return ("", "")
    slashes = text.count("/")
    if slashes == 0:
        return ("", text)
    if slashes == 1:
        group, version = text.split("/")
        return (group, version)
    return f"unexpected GroupVersion string: {text}"


def validate_param_kind(param_kind: dict[str, Any], path: str) -> list[FieldError]:
    """validateParamKind."""
    errors: list[FieldError] = []
    api_version = param_kind.get("apiVersion") or ""
    kind = param_kind.get("kind") or ""
    at = child(path, "apiVersion")
    if not api_version:
        errors.append(required(at))
    else:
        parsed = _parse_group_version(api_version)
        if isinstance(parsed, str):
            errors.append(invalid(at, api_version, parsed))
        else:
            group, version = parsed
            if group:
                messages = is_dns1123_subdomain(group)
                if messages:
                    errors.append(invalid(at, group, ",".join(messages)))
            if not version:
                errors.append(invalid(at, api_version, "version must be specified"))
            else:
                messages = is_dns1035_label(version)
                if messages:
                    errors.append(invalid(at, version, ",".join(messages)))
    if not kind:
        errors.append(required(child(path, "kind")))
    else:
        messages = is_dns1035_label(kind.lower())
        if messages:
            errors.append(
                invalid(
                    child(path, "kind"),
                    kind,
                    "may have mixed case, but should otherwise match: " + ",".join(messages),
                )
            )
    return errors


def validate_param_ref(param_ref: dict[str, Any] | None, path: str) -> list[FieldError]:
    """validateParamRef."""
    if param_ref is None:
        return []
    errors: list[FieldError] = []
    name = param_ref.get("name") or ""
    selector = param_ref.get("selector")
    if name:
        errors.extend(invalid(child(path, "name"), name, msg) for msg in is_path_segment_name(name))
        if selector is not None:
            errors.append(
                forbidden(child(path, "name"), "name and selector are mutually exclusive")
            )
    if selector is not None:
        errors.extend(validate_label_selector(selector, child(path, "selector")))
        if name:
            errors.append(
                forbidden(child(path, "selector"), "name and selector are mutually exclusive")
            )
    if not name and selector is None:
        errors.append(required(path, "one of name or selector must be specified"))
    action = param_ref.get("parameterNotFoundAction")
    if not action:
        errors.append(required(child(path, "parameterNotFoundAction")))
    elif action not in PARAMETER_NOT_FOUND_ACTIONS:
        errors.append(
            not_supported(
                child(path, "parameterNotFoundAction"), action, PARAMETER_NOT_FOUND_ACTIONS
            )
        )
    return errors


def validate_validation_actions(actions: list[str], path: str) -> list[FieldError]:
    """validateValidationActions."""
    errors: list[FieldError] = []
    seen: set[str] = set()
    for position, action in enumerate(actions):
        if action not in VALIDATION_ACTIONS:
            errors.append(not_supported(index(path, position), action, VALIDATION_ACTIONS))
        if action in seen:
            errors.append(duplicate(index(path, position), action))
        seen.add(action)
    if "Deny" in seen and "Warn" in seen:
        errors.append(
            invalid(
                path,
                actions,
                "must not contain both Deny and Warn (repeating the same validation failure "
                "information in the API response and headers serves no purpose)",
            )
        )
    if not seen:
        errors.append(required(path, "at least one validation action is required"))
    return errors


def validate_failure_policy(policy: str | None, path: str) -> list[FieldError]:
    """failurePolicy: required (after defaulting) and Fail or Ignore."""
    if policy is None:
        return [required(path)]
    if policy not in SUPPORTED_FAILURE_POLICIES:
        return [not_supported(path, policy, SUPPORTED_FAILURE_POLICIES)]
    return []


# ---------------------------------------------------------------- bindings


def _validate_binding_common(spec: dict[str, Any], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    policy_name = spec.get("policyName", "")
    if not policy_name:
        errors.append(required(child(path, "policyName")))
    else:
        errors.extend(
            invalid(child(path, "policyName"), policy_name, msg)
            for msg in name_is_dns_subdomain(policy_name, False)
        )
    errors.extend(validate_param_ref(spec.get("paramRef"), child(path, "paramRef")))
    errors.extend(
        validate_match_resources(spec.get("matchResources"), child(path, "matchResources"))
    )
    return errors


def validate_vap_binding_spec(spec: dict[str, Any], path: str) -> list[FieldError]:
    """validateValidatingAdmissionPolicyBindingSpec."""
    errors = _validate_binding_common(spec, path)
    errors.extend(
        validate_validation_actions(
            spec.get("validationActions") or [], child(path, "validationActions")
        )
    )
    return errors


def validate_map_binding_spec(spec: dict[str, Any], path: str) -> list[FieldError]:
    """validateMutatingAdmissionPolicyBindingSpec."""
    errors = _validate_binding_common(spec, path)
    if spec.get("matchResources") is not None:
        errors.extend(
            validate_mutating_operations(spec["matchResources"], child(path, "matchResources"))
        )
    return errors
