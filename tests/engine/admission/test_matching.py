"""Matching of requests against matchConstraints / matchResources, with the reason for a miss."""

from __future__ import annotations

import pytest

from policyeditor.engine.admission.matching import (
    NamespaceSource,
    match_binding,
    match_policy,
    match_resources,
    rule_mismatch,
)
from policyeditor.engine.admission.request import AdmissionRequest


def deployment(name="web", namespace="prod", labels=None):
    meta = {"name": name, "namespace": namespace}
    if labels is not None:
        meta["labels"] = labels
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta, "spec": {}}


def request_for(obj=None, old=None, **overrides):
    return AdmissionRequest.build(object=obj, old_object=old, overrides=overrides or None)


def rule(**fields):
    base = {
        "operations": ["CREATE", "UPDATE"],
        "apiGroups": ["apps"],
        "apiVersions": ["v1"],
        "resources": ["deployments"],
    }
    base.update(fields)
    return base


def criteria(*rules, exclude=(), ns=None, obj=None, policy="Equivalent"):
    return {
        "resourceRules": list(rules),
        "excludeResourceRules": list(exclude),
        "namespaceSelector": {} if ns is None else ns,
        "objectSelector": {} if obj is None else obj,
        "matchPolicy": policy,
    }


def test_a_matching_rule_matches_and_reports_the_request_kind():
    result = match_resources(criteria(rule()), request_for(deployment()))
    assert result.matched
    assert result.kind == {"group": "apps", "version": "v1", "kind": "Deployment"}
    assert result.resource == {"group": "apps", "version": "v1", "resource": "deployments"}


def test_an_operation_outside_the_rule_says_which_operations_were_allowed():
    req = request_for(old=deployment())
    result = match_resources(criteria(rule()), req)
    assert not result.matched
    assert result.reason == "operation DELETE not in [CREATE, UPDATE]"


def test_the_star_operation_matches_connect():
    req = request_for(deployment(), operation="CONNECT")
    assert match_resources(criteria(rule(operations=["*"])), req).matched


@pytest.mark.parametrize(
    ("field", "value", "reason"),
    [
        ("apiGroups", [""], "API group 'apps' not in ['']"),
        ("apiVersions", ["v1beta1"], "API version v1 not in [v1beta1]"),
        ("resources", ["pods"], "resource deployments not in [pods]"),
    ],
)
def test_group_version_and_resource_mismatches_are_explained(field, value, reason):
    # Exact: with Equivalent, apps/v1beta1 would be reached through apps/v1.
    result = match_resources(
        criteria(rule(**{field: value}), policy="Exact"), request_for(deployment())
    )
    assert not result.matched
    assert result.reason == reason


def test_wildcard_group_and_version_match_anything():
    assert match_resources(
        criteria(rule(apiGroups=["*"], apiVersions=["*"])), request_for(deployment())
    ).matched


@pytest.mark.parametrize(
    ("resources", "subresource", "matches"),
    [
        (["*"], "", True),
        (["*"], "scale", False),
        (["deployments/*"], "scale", True),
        # Go's rules.Matcher: a "*" subresource also equals the empty one, so res/* matches res.
        (["deployments/*"], "", True),
        (["*/scale"], "scale", True),
        (["*/scale"], "status", False),
        (["*/*"], "status", True),
        (["*/*"], "", True),
        (["deployments"], "status", False),
        (["deployments/status"], "status", True),
    ],
)
def test_resource_wildcards_and_subresources(resources, subresource, matches):
    req = request_for(deployment(), subResource=subresource)
    assert match_resources(criteria(rule(resources=resources)), req).matched is matches


def test_resource_names_restrict_by_request_name():
    named = rule(resourceNames=["web"])
    assert match_resources(criteria(named), request_for(deployment("web"))).matched
    miss = match_resources(criteria(named), request_for(deployment("api")))
    assert not miss.matched
    assert miss.reason == "name 'api' not in resourceNames [web]"


def test_resource_names_never_match_a_generate_name_create():
    obj = deployment()
    obj["metadata"] = {"generateName": "web-", "namespace": "prod"}
    result = match_resources(criteria(rule(resourceNames=["web"])), request_for(obj))
    assert not result.matched


@pytest.mark.parametrize(
    ("scope", "namespaced_match", "cluster_match", "namespace_match"),
    [("*", True, True, True), ("Namespaced", True, False, False), ("Cluster", False, True, True)],
)
def test_scope_separates_namespaced_and_cluster_requests(
    scope, namespaced_match, cluster_match, namespace_match
):
    any_rule = {
        "operations": ["*"],
        "apiGroups": ["*"],
        "apiVersions": ["*"],
        "resources": ["*"],
        "scope": scope,
    }
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "a"}}
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}}
    ns = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a"}}
    # A namespace UPDATE carries its own name as request namespace but is cluster-scoped.
    ns_request = request_for(ns, ns)
    assert ns_request.namespace == "a"
    assert match_resources(criteria(any_rule), request_for(pod)).matched is namespaced_match
    assert match_resources(criteria(any_rule), request_for(node)).matched is cluster_match
    assert match_resources(criteria(any_rule), ns_request).matched is namespace_match


def test_exclusion_wins_over_inclusion():
    result = match_resources(
        criteria(rule(), exclude=[rule(resourceNames=["web"])]), request_for(deployment("web"))
    )
    assert not result.matched
    assert result.reason == "excluded by excludeResourceRules"


def test_binding_without_rules_matches_the_request_kind():
    result = match_resources(criteria(), request_for(deployment()))
    assert result.matched


def test_equivalent_match_policy_matches_extensions_rules_and_reports_the_matched_version():
    ext_rule = rule(apiGroups=["extensions"], apiVersions=["v1beta1"])
    req = request_for(deployment())
    equivalent = match_resources(criteria(ext_rule, policy="Equivalent"), req)
    assert equivalent.matched and equivalent.equivalent
    assert equivalent.resource == {
        "group": "extensions",
        "version": "v1beta1",
        "resource": "deployments",
    }
    assert equivalent.kind == {"group": "extensions", "version": "v1beta1", "kind": "Deployment"}
    exact = match_resources(criteria(ext_rule, policy="Exact"), req)
    assert not exact.matched
    assert exact.reason == "API group 'apps' not in [extensions]"


def test_equivalent_subresource_keeps_the_subresource_kind():
    ext_rule = rule(
        apiGroups=["extensions"], apiVersions=["v1beta1"], resources=["deployments/scale"]
    )
    req = request_for(deployment(), subResource="scale")
    result = match_resources(criteria(ext_rule), req)
    assert result.matched
    assert result.kind == {"group": "autoscaling", "version": "v1", "kind": "Scale"}


LABELLED = deployment(labels={"app": "web", "tier": "front"})


@pytest.mark.parametrize(
    ("selector", "matches"),
    [
        ({"matchLabels": {"app": "web"}}, True),
        ({"matchLabels": {"app": "db"}}, False),
        ({"matchExpressions": [{"key": "app", "operator": "In", "values": ["web", "x"]}]}, True),
        ({"matchExpressions": [{"key": "app", "operator": "In", "values": ["x"]}]}, False),
        ({"matchExpressions": [{"key": "app", "operator": "NotIn", "values": ["x"]}]}, True),
        ({"matchExpressions": [{"key": "app", "operator": "NotIn", "values": ["web"]}]}, False),
        ({"matchExpressions": [{"key": "missing", "operator": "NotIn", "values": ["a"]}]}, True),
        ({"matchExpressions": [{"key": "tier", "operator": "Exists"}]}, True),
        ({"matchExpressions": [{"key": "missing", "operator": "Exists"}]}, False),
        ({"matchExpressions": [{"key": "missing", "operator": "DoesNotExist"}]}, True),
        ({"matchExpressions": [{"key": "tier", "operator": "DoesNotExist"}]}, False),
    ],
)
def test_object_selector_operators(selector, matches):
    result = match_resources(criteria(rule(), obj=selector), request_for(LABELLED))
    assert result.matched is matches
    if not matches:
        assert result.reason.startswith("objectSelector ")


def test_object_selector_matches_the_old_object_too():
    old = deployment(labels={"app": "web"})
    new = deployment(labels={})
    result = match_resources(
        criteria(rule(), obj={"matchLabels": {"app": "web"}}), request_for(new, old)
    )
    assert result.matched


def test_a_delete_without_a_labelled_old_object_never_matches_a_selector():
    req = request_for(old={"apiVersion": "apps/v1", "kind": "Deployment"})
    any_op = rule(operations=["*"])
    sel = {"matchExpressions": [{"key": "a", "operator": "DoesNotExist"}]}
    assert not match_resources(criteria(any_op, obj=sel), req).matched


def test_namespace_selector_reads_the_namespace_labels():
    ns = {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": "prod", "labels": {"env": "prod"}},
    }
    source = NamespaceSource(resources=[ns])
    selector = {"matchLabels": {"env": "prod"}}
    assert match_resources(criteria(rule(), ns=selector), request_for(deployment()), source).matched
    other = match_resources(
        criteria(rule(), ns={"matchLabels": {"env": "dev"}}), request_for(deployment()), source
    )
    assert not other.matched
    assert "namespace 'prod'" in other.reason


def test_namespace_not_found_is_an_error_only_when_the_rules_match():
    selector = {"matchLabels": {"env": "prod"}}
    matching = match_resources(criteria(rule(), ns=selector), request_for(deployment()))
    assert not matching.matched
    assert matching.error == 'namespaces "prod" not found'
    other = match_resources(
        criteria(rule(resources=["pods"]), ns=selector), request_for(deployment())
    )
    assert not other.matched and other.error == ""


def test_namespace_selector_on_a_namespace_create_uses_the_object_labels():
    ns = {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": "n", "labels": {"env": "x"}},
    }
    any_rule = rule(apiGroups=[""], resources=["namespaces"])
    assert match_resources(
        criteria(any_rule, ns={"matchLabels": {"env": "x"}}), request_for(ns)
    ).matched


def test_cluster_scoped_requests_are_never_filtered_by_namespace_selector():
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}}
    any_rule = rule(apiGroups=[""], resources=["nodes"])
    sel = {"matchLabels": {"env": "prod"}}
    assert match_resources(criteria(any_rule, ns=sel), request_for(node)).matched


def test_an_invalid_selector_is_an_error_when_rules_match():
    sel = {"matchExpressions": [{"key": "a", "operator": "Bogus"}]}
    result = match_resources(criteria(rule(), obj=sel), request_for(deployment()))
    assert not result.matched
    assert '"Bogus" is not a valid label selector operator' in result.error


def test_policies_never_match_policy_objects():
    vap = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": "x"},
    }
    policy = {"spec": {"matchConstraints": criteria(rule(apiGroups=["*"], resources=["*"]))}}
    result = match_policy(policy, request_for(vap))
    assert not result.matched
    assert "exempt" in result.reason


def test_a_policy_without_match_constraints_is_a_configuration_error():
    result = match_policy({"spec": {}}, request_for(deployment()))
    assert result.error == "policy contained no match constraints, a required field"


def test_mutating_policies_never_see_delete():
    policy = {
        "kind": "MutatingAdmissionPolicy",
        "spec": {"matchConstraints": criteria(rule(operations=["*"]))},
    }
    assert not match_policy(policy, request_for(old=deployment())).matched


def test_a_binding_intersects_with_the_policy():
    binding = {"spec": {"matchResources": criteria(obj={"matchLabels": {"app": "db"}})}}
    result = match_binding(binding, request_for(LABELLED))
    assert not result.matched
    assert result.reason.startswith("binding matchResources: objectSelector")
    assert match_binding({"spec": {}}, request_for(LABELLED)).matched


def test_rule_mismatch_is_empty_for_a_match():
    assert rule_mismatch(rule(), request_for(deployment())) == ""
