"""Param selection for a (policy, binding) as CollectParams does it."""

from __future__ import annotations

from policyeditor.engine.admission.params import MISSING, collect_params, param_label
from policyeditor.engine.admission.request import AdmissionRequest

POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "team"}}


def policy(api_version="example.com/v1", kind="Limit"):
    return {"spec": {"paramKind": {"apiVersion": api_version, "kind": kind}}}


def binding(**ref):
    return {"metadata": {"name": "b"}, "spec": {"paramRef": ref}}


def limit(name, namespace=None, labels=None):
    meta = {"name": name}
    if namespace:
        meta["namespace"] = namespace
    if labels:
        meta["labels"] = labels
    return {"apiVersion": "example.com/v1", "kind": "Limit", "metadata": meta}


def select(ref, resources, obj=POD, **kwargs):
    return collect_params(
        policy(), binding(**ref), AdmissionRequest.build(object=obj), resources, **kwargs
    )


def test_no_param_kind_means_one_null_param():
    chosen = collect_params({"spec": {}}, binding(name="x"), AdmissionRequest.build(object=POD), [])
    assert chosen.params == [None] and not chosen.error


def test_a_binding_without_param_ref_means_one_null_param():
    chosen = collect_params(
        policy(), {"spec": {}}, AdmissionRequest.build(object=POD), [limit("a")]
    )
    assert chosen.params == [None]


def test_namespaced_params_are_found_in_the_request_namespace():
    resources = [limit("a", "team"), limit("a", "other")]
    chosen = select({"name": "a", "parameterNotFoundAction": "Deny"}, resources)
    assert [param_label(p) for p in chosen.params] == ["team/a"]


def test_selectors_pick_every_matching_param_in_order():
    resources = [
        limit("b", "team", {"use": "yes"}),
        limit("a", "team", {"use": "yes"}),
        limit("c", "team"),
    ]
    chosen = select(
        {"selector": {"matchLabels": {"use": "yes"}}, "parameterNotFoundAction": "Deny"}, resources
    )
    assert [param_label(p) for p in chosen.params] == ["team/a", "team/b"]


def test_an_empty_selector_selects_all():
    resources = [limit("b", "team"), limit("a", "team")]
    chosen = select({"selector": {}, "parameterNotFoundAction": "Deny"}, resources)
    assert len(chosen.params) == 2


def test_cluster_scoped_params_refuse_a_namespace():
    chosen = select(
        {"name": "a", "namespace": "team", "parameterNotFoundAction": "Deny"}, [limit("a")]
    )
    assert (
        chosen.error == "paramRef.namespace must not be provided for a cluster-scoped `paramKind`"
    )


def test_a_crd_decides_the_param_scope():
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "spec": {
            "group": "example.com",
            "names": {"kind": "Limit"},
            "scope": "Cluster",
            "versions": [{"name": "v1"}],
        },
    }
    chosen = select({"name": "a", "parameterNotFoundAction": "Allow"}, [crd])
    assert chosen.params == [] and "parameterNotFoundAction Allow" in chosen.note


def test_not_found_with_deny_is_an_error():
    chosen = select({"name": "zzz", "parameterNotFoundAction": "Deny"}, [limit("a", "team")])
    assert chosen.error == "no params found for policy binding with `Deny` parameterNotFoundAction"


def test_an_invalid_selector_is_an_error():
    ref = {
        "selector": {"matchExpressions": [{"key": "a", "operator": "In"}]},
        "parameterNotFoundAction": "Deny",
    }
    chosen = select(ref, [limit("a", "team")])
    assert chosen.error == "for 'in', 'notin' operators, values set can't be empty"


def test_native_params_get_their_type_meta():
    configmap = {"metadata": {"name": "cm", "namespace": "team"}, "data": {"k": "v"}}
    cm_policy = policy("v1", "ConfigMap")
    chosen = collect_params(
        cm_policy,
        binding(name="cm", parameterNotFoundAction="Deny"),
        AdmissionRequest.build(object=POD),
        [dict(configmap, apiVersion="v1", kind="ConfigMap")],
    )
    assert chosen.params[0]["kind"] == "ConfigMap" and chosen.params[0]["data"] == {"k": "v"}


def test_inline_params_win_and_missing_means_resolve():
    assert select(
        {"name": "zzz", "parameterNotFoundAction": "Deny"}, [], inline={"x": 1}
    ).params == [{"x": 1}]
    assert select({"name": "zzz", "parameterNotFoundAction": "Deny"}, [], inline=MISSING).error
