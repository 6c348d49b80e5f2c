"""Does a request reach a policy or binding (matchConstraints / matchResources), and why not.

Follows kubernetes/apiserver pkg/admission/plugin/policy/matching and webhook/predicates: selectors
first (their errors held back until the rules match), excludeResourceRules, resourceRules with
scope/operation/group/version/resource/resourceNames, then matchPolicy Equivalent.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from policyeditor.engine import schemas
from policyeditor.engine.admission import selectors
from policyeditor.engine.admission.request import AdmissionRequest
from policyeditor.engine.objects import name_of
from policyeditor.engine.versions import DEFAULT_VERSION

# Requests the policy plugins never see: the policy kinds themselves and virtual review resources.
POLICY_RESOURCES = frozenset(
    {
        "validatingadmissionpolicies",
        "validatingadmissionpolicybindings",
        "mutatingadmissionpolicies",
        "mutatingadmissionpolicybindings",
    }
)
REVIEW_RESOURCES = frozenset(
    {
        ("authentication.k8s.io", "tokenreviews"),
        ("authentication.k8s.io", "selfsubjectreviews"),
        ("authorization.k8s.io", "subjectaccessreviews"),
        ("authorization.k8s.io", "selfsubjectaccessreviews"),
        ("authorization.k8s.io", "localsubjectaccessreviews"),
        ("authorization.k8s.io", "selfsubjectrulesreviews"),
    }
)


@dataclass
class MatchResult:
    """The answer of a matcher: matched or not, why not, selector errors, the matched kind."""

    matched: bool
    reason: str = ""
    error: str = ""
    kind: dict[str, Any] | None = None
    resource: dict[str, Any] | None = None
    equivalent: bool = False
    details: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON form, without `details`."""
        form = asdict(self)
        del form["details"]
        return form


@dataclass
class NamespaceSource:
    """Where namespace labels come from: an explicit namespace object and/or the cluster objects."""

    namespace_object: dict[str, Any] | None = None
    resources: list[dict[str, Any]] = field(default_factory=list)
    # kat's convention for a test that gives no namespace: every namespaceSelector matches, as there
    # is no cluster to look the namespace up in (zemanlx/kat internal/evaluator/match.go,
    # matchesNamespaceSelector). The API server has no such case.
    any_selector_matches: bool = False

    def find(self, name: str) -> dict[str, Any] | None:
        """The Namespace object called `name`, or None."""
        # An explicitly given namespace object is the request's namespace whatever its name (the
        # caller said so); otherwise the cluster objects are searched by name.
        if isinstance(self.namespace_object, dict):
            return self.namespace_object
        for obj in self.resources:
            if (
                isinstance(obj, dict)
                and obj.get("kind") == "Namespace"
                and obj.get("apiVersion", "v1") == "v1"
                and name_of(obj) == name
            ):
                return obj
        return None


def _items(mapping: dict[str, Any], key: str) -> list[Any]:
    """mapping[key] when it is a list (malformed fields count as empty)."""
    value = mapping.get(key)
    return value if isinstance(value, list) else []


def _fmt_list(values: list[Any]) -> str:
    return "[" + ", ".join(repr(v) if v == "" else str(v) for v in values) + "]"


def exempt_reason(request: AdmissionRequest) -> str:
    """Why the policy plugins ignore this request entirely ("" when they do not)."""
    group = request.resource.get("group", "")
    resource = request.resource.get("resource", "")
    if group == "admissionregistration.k8s.io" and resource in POLICY_RESOURCES:
        return f"{resource} requests are exempt from admission policies"
    if (group, resource) in REVIEW_RESOURCES:
        return f"{resource} are not persisted and never reach admission policies"
    return ""


def _is_namespace_resource(resource: dict[str, Any]) -> bool:
    return (
        resource.get("group", "") == ""
        and resource.get("version") == "v1"
        and resource.get("resource") == "namespaces"
    )


def _split_resource(text: str) -> tuple[str, str]:
    res, _, sub = text.partition("/")
    return res, sub


def rule_mismatch(
    rule: dict[str, Any], request: AdmissionRequest, resource: dict[str, Any] | None = None
) -> str:
    """Why one RuleWithOperations does not match the request ("" when it matches)."""
    # `resource` replaces the request's GVR (used for the equivalent-resource pass).
    gvr = resource or request.resource
    scope = rule.get("scope") or "*"
    if scope == "Namespaced":
        if _is_namespace_resource(gvr) or not request.namespace:
            return "scope Namespaced does not match a cluster-scoped request"
    elif scope == "Cluster":
        if not (_is_namespace_resource(gvr) or not request.namespace):
            return "scope Cluster does not match a namespaced request"
    elif scope != "*":
        return f"scope {scope} matches nothing"
    operations = _items(rule, "operations")
    if "*" not in operations and request.operation not in operations:
        return f"operation {request.operation} not in {_fmt_list(operations)}"
    groups = _items(rule, "apiGroups")
    group = gvr.get("group", "")
    if "*" not in groups and group not in groups:
        return f"API group {group!r} not in {_fmt_list(groups)}"
    versions = _items(rule, "apiVersions")
    version = gvr.get("version", "")
    if "*" not in versions and version not in versions:
        return f"API version {version} not in {_fmt_list(versions)}"
    wanted = gvr.get("resource", "")
    sub = request.sub_resource
    for entry in _items(rule, "resources"):
        res, rule_sub = _split_resource(str(entry))
        if (res == "*" or res == wanted) and (rule_sub == "*" or rule_sub == sub):
            return ""
    shown = f"{wanted}/{sub}" if sub else wanted
    return f"resource {shown} not in {_fmt_list(_items(rule, 'resources'))}"


def _named_rule_mismatch(rule: dict[str, Any], request: AdmissionRequest) -> str:
    why = rule_mismatch(rule, request)
    if why:
        return why
    names = _items(rule, "resourceNames")
    if names and request.name not in names:
        shown = repr(request.name) if request.name else "'' (generated)"
        return f"name {shown} not in resourceNames {_fmt_list(names)}"
    return ""


def _kind_for(
    resource: dict[str, Any], request: AdmissionRequest, k8s_version: str
) -> dict[str, Any]:
    """The kind an equivalent resource serves (KindFor): the same kind name at its group/version."""
    group, version = resource.get("group", ""), resource.get("version", "")
    info = schemas.kind_for_resource(group, version, resource.get("resource", ""), k8s_version)
    kind_name = info.kind if info is not None else request.kind.get("kind", "")
    if request.sub_resource:
        sub_group, sub_version, sub_kind = schemas.subresource_kind(
            group, version, kind_name, resource.get("resource", ""), request.sub_resource
        )
        if (sub_group, sub_version, sub_kind) != (group, version, kind_name):
            return {"group": sub_group, "version": sub_version, "kind": sub_kind}
    return {"group": group, "version": version, "kind": kind_name}


def match_rules(
    rules: list[dict[str, Any]],
    match_policy: str | None,
    request: AdmissionRequest,
    k8s_version: str = DEFAULT_VERSION,
) -> MatchResult:
    """Match a list of NamedRuleWithOperations (matchesResourceRules), Equivalent included."""
    reasons: list[str] = []
    for index, rule in enumerate(rules):
        if not isinstance(rule, dict):
            reasons.append(f"rule {index} is not a mapping")
            continue
        why = _named_rule_mismatch(rule, request)
        if not why:
            return MatchResult(True, kind=dict(request.kind), resource=dict(request.resource))
        reasons.append(why)
    # No rule to try (an empty excludeResourceRules, say): no equivalents to look up either.
    if match_policy == "Equivalent" and any(isinstance(rule, dict) for rule in rules):
        group = request.resource.get("group", "")
        version = request.resource.get("version", "")
        resource = request.resource.get("resource", "")
        equivalents = schemas.equivalent_resources(group, version, resource, k8s_version)
        for rule in rules:
            if not isinstance(rule, dict):
                continue
            for g, v, r in equivalents:
                candidate = {"group": g, "version": v, "resource": r}
                # As in Kubernetes, resourceNames are not re-checked for equivalent resources.
                if rule_mismatch(rule, request, candidate):
                    continue
                kind = _kind_for(candidate, request, k8s_version)
                return MatchResult(True, kind=kind, resource=candidate, equivalent=True)
    if len(reasons) == 1:
        return MatchResult(False, reason=reasons[0], details=reasons)
    summary = "; ".join(f"rule {i}: {why}" for i, why in enumerate(reasons))
    return MatchResult(False, reason=summary or "no resource rules", details=reasons)


def _namespace_match(
    selector: Any, request: AdmissionRequest, namespaces: NamespaceSource
) -> tuple[bool, str, str]:
    """(matches, why not, error) for the namespaceSelector (MatchNamespaceSelector)."""
    resource = request.resource.get("resource", "")
    if not request.namespace and resource != "namespaces":
        return True, "", ""
    requirements, problem = selectors.parse_selector(selector)
    if requirements is None:
        return False, "", f"Internal error occurred: {problem}"
    if not requirements:
        return True, "", ""
    if (
        resource == "namespaces"
        and not request.sub_resource
        and request.operation in ("CREATE", "UPDATE")
    ):
        labels = selectors.object_labels(request.object) or {}
        owner = "the namespace object's own labels"
    else:
        if namespaces.any_selector_matches:
            return True, "", ""
        namespace = namespaces.find(request.namespace)
        if namespace is None:
            return False, "", f'namespaces "{request.namespace}" not found'
        labels = selectors.object_labels(namespace) or {}
        owner = f"namespace {request.namespace!r}"
    unmet = selectors.first_unmet(requirements, labels)
    if unmet is None:
        return True, "", ""
    return False, f"namespaceSelector requirement {unmet} not met by {owner}", ""


def _object_match(selector: Any, request: AdmissionRequest) -> tuple[bool, str, str]:
    """(matches, why not, error) for the objectSelector: object OR oldObject labels."""
    requirements, problem = selectors.parse_selector(selector)
    if requirements is None:
        return False, "", f"Internal error occurred: {problem}"
    if not requirements:
        return True, "", ""
    for candidate in (request.object, request.old_object):
        labels = selectors.object_labels(candidate)
        if labels is not None and selectors.selector_matches(requirements, labels):
            return True, "", ""
    return (
        False,
        f"objectSelector {selectors.describe(requirements)} matches neither object nor oldObject",
        "",
    )


def match_resources(
    criteria: dict[str, Any],
    request: AdmissionRequest,
    namespaces: NamespaceSource | None = None,
    *,
    k8s_version: str = DEFAULT_VERSION,
) -> MatchResult:
    """Matcher.Matches for one MatchResources (matchConstraints or a binding's matchResources)."""
    namespaces = namespaces or NamespaceSource()
    if not isinstance(criteria, dict):
        return MatchResult(
            False,
            reason="match resources must be a mapping",
            error="match resources must be a mapping",
        )
    if criteria.get("namespaceSelector") is None:
        msg = (
            "a nil namespace selector was passed, please ensure selectors are initialized properly"
        )
        return MatchResult(False, reason=msg, error=msg)
    if criteria.get("objectSelector") is None:
        msg = "a nil object selector was passed, please ensure selectors are initialized properly"
        return MatchResult(False, reason=msg, error=msg)
    ns_ok, ns_why, ns_err = _namespace_match(criteria.get("namespaceSelector"), request, namespaces)
    if not ns_ok and not ns_err:
        return MatchResult(False, reason=ns_why)
    obj_ok, obj_why, obj_err = _object_match(criteria.get("objectSelector"), request)
    if not obj_ok and not obj_err:
        return MatchResult(False, reason=obj_why)
    match_policy = criteria.get("matchPolicy")
    exclude = _items(criteria, "excludeResourceRules")
    if exclude:  # an empty list excludes nothing: no result to build
        excluded = match_rules(exclude, match_policy, request, k8s_version)
        if excluded.error:
            return MatchResult(False, reason=excluded.reason, error=excluded.error)
        if excluded.matched:
            return MatchResult(False, reason="excluded by excludeResourceRules")
    rules = _items(criteria, "resourceRules")
    if not rules:
        result = MatchResult(True, kind=dict(request.kind), resource=dict(request.resource))
    else:
        result = match_rules(rules, match_policy, request, k8s_version)
    if result.error or not result.matched:
        return result
    # Selector errors only count for requests the rules match (a non-matching policy never errors).
    if ns_err or obj_err:
        error = ns_err or obj_err
        return MatchResult(False, reason=error, error=error)
    return result


def match_policy(
    policy: dict[str, Any],
    request: AdmissionRequest,
    namespaces: NamespaceSource | None = None,
    *,
    k8s_version: str = DEFAULT_VERSION,
) -> MatchResult:
    """DefinitionMatches: the policy's matchConstraints (exempt requests never match)."""
    exempt = exempt_reason(request)
    if exempt:
        return MatchResult(False, reason=exempt)
    spec = policy.get("spec") if isinstance(policy, dict) else None
    constraints = spec.get("matchConstraints") if isinstance(spec, dict) else None
    if constraints is None:
        msg = "policy contained no match constraints, a required field"
        return MatchResult(False, reason=msg, error=msg)
    if policy.get("kind") == "MutatingAdmissionPolicy" and request.operation not in (
        "CREATE",
        "UPDATE",
        "CONNECT",
    ):
        return MatchResult(False, reason=f"operation {request.operation} is never mutated")
    return match_resources(constraints, request, namespaces, k8s_version=k8s_version)


def match_binding(
    binding: dict[str, Any] | None,
    request: AdmissionRequest,
    namespaces: NamespaceSource | None = None,
    *,
    k8s_version: str = DEFAULT_VERSION,
) -> MatchResult:
    """BindingMatches: no matchResources matches; otherwise the same algorithm on them."""
    spec = binding.get("spec") if isinstance(binding, dict) else None
    criteria = spec.get("matchResources") if isinstance(spec, dict) else None
    if criteria is None:
        return MatchResult(True, kind=dict(request.kind), resource=dict(request.resource))
    result = match_resources(criteria, request, namespaces, k8s_version=k8s_version)
    if not result.matched and result.reason and not result.error:
        result.reason = f"binding matchResources: {result.reason}"
    return result
