"""The API server's defaulting of the four admission policy kinds.

Follows kubernetes/kubernetes pkg/apis/admissionregistration/{v1,v1beta1,v1alpha1}/defaults.go:
SetDefaults_ValidatingAdmissionPolicySpec, SetDefaults_MatchResources, SetDefaults_Rule and
(v1alpha1 only) SetDefaults_ParamRef.

Defaulting runs on the decoded object before validation: MatchResources gets
matchPolicy Equivalent and empty namespace/object selectors, every rule scope "*", policies
failurePolicy Fail (VAP in all versions, MAP in all versions: the alpha defaulter sets it too),
and v1alpha1 paramRefs parameterNotFoundAction Deny. Nothing else has a default: MAP
reinvocationPolicy, binding validationActions and v1/v1beta1 parameterNotFoundAction stay unset.
"""

from __future__ import annotations

from typing import Any

from policyeditor.engine.defaulting.record import deep_copy
from policyeditor.engine.objects import ADMISSION_KINDS, POLICY_KINDS


def _default_rules(rules: Any) -> None:
    if not isinstance(rules, list):
        return
    for rule in rules:
        if isinstance(rule, dict) and rule.get("scope") is None:
            rule["scope"] = "*"


def _default_match_resources(match: Any) -> None:
    if not isinstance(match, dict):
        return
    if match.get("matchPolicy") is None:
        match["matchPolicy"] = "Equivalent"
    if match.get("namespaceSelector") is None:
        match["namespaceSelector"] = {}
    if match.get("objectSelector") is None:
        match["objectSelector"] = {}
    _default_rules(match.get("resourceRules"))
    _default_rules(match.get("excludeResourceRules"))


def _api_version(doc: dict[str, Any]) -> str:
    api_version = doc.get("apiVersion")
    return api_version.rsplit("/", 1)[-1] if isinstance(api_version, str) else ""


def default_in_place(doc: dict[str, Any]) -> dict[str, Any]:
    """Apply the defaults to `doc` itself (which must be a dict) and return it."""
    kind = doc.get("kind")
    spec = doc.get("spec")
    if kind not in ADMISSION_KINDS:
        return doc
    if spec is None:
        # Go's defaulters act on the zero-valued spec struct, so an absent spec still defaults.
        spec = doc["spec"] = {}
    if not isinstance(spec, dict):
        return doc
    if kind in POLICY_KINDS:
        if spec.get("failurePolicy") is None:
            spec["failurePolicy"] = "Fail"
        _default_match_resources(spec.get("matchConstraints"))
    else:
        _default_match_resources(spec.get("matchResources"))
        param_ref = spec.get("paramRef")
        if (
            _api_version(doc) == "v1alpha1"
            and isinstance(param_ref, dict)
            and param_ref.get("parameterNotFoundAction") is None
        ):
            param_ref["parameterNotFoundAction"] = "Deny"
    return doc


def apply_defaults(doc: dict[str, Any]) -> dict[str, Any]:
    """A defaulted deep copy of `doc`, as the API server defaults it before validation."""
    if not isinstance(doc, dict):
        return doc
    return default_in_place(deep_copy(doc))
