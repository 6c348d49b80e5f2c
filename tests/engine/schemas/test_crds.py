"""CRDs as a schema source: the API server's checks, the registry, versions, CR validation."""

from __future__ import annotations

import copy

import pytest

from policyeditor.engine import schemas, validation
from policyeditor.engine.admission.inputs import EvaluationInputs, evaluate_inputs
from policyeditor.engine.schemas.objects import check_custom_object
from tests.crd_cases import BY_ID, widget, widget_crd

VERSION = "1.34"


def test_every_real_crd_is_accepted():
    for case_id in BY_ID:
        assert schemas.load_crds(BY_ID[case_id].crds()).crds


def test_a_crd_without_a_schema_is_refused_as_the_api_server_refuses_it():
    crd = widget_crd()
    del crd["spec"]["versions"][0]["schema"]
    with pytest.raises(schemas.CrdError) as caught:
        schemas.load_crds([crd])
    assert str(caught.value) == (
        'CustomResourceDefinition.apiextensions.k8s.io "widgets.example.com" is invalid: '
        "spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required"
    )


def test_a_non_structural_schema_names_each_untyped_field():
    crd = widget_crd()
    props = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]
    props["spec"]["properties"]["color"] = {"description": "no type"}
    with pytest.raises(schemas.CrdError) as caught:
        schemas.load_crds([crd])
    assert (
        "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[color].type: "
        "Required value: must not be empty for specified object fields"
    ) in str(caught.value)


def test_a_malformed_crd_gets_each_of_its_errors():
    crd = widget_crd()
    crd["metadata"]["name"] = "gadgets.example.com"
    crd["spec"]["scope"] = "Global"
    crd["spec"]["versions"][0]["storage"] = False
    with pytest.raises(schemas.CrdError) as caught:
        schemas.load_crds([crd])
    text = str(caught.value)
    assert (
        'metadata.name: Invalid value: "gadgets.example.com": must be spec.names.plural+"."+spec.group'
        in text
    )
    assert (
        'spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"' in text
    )
    assert "spec.versions: Invalid value: " in text
    assert "must have exactly one version marked as storage version" in text
    assert len(caught.value.errors) == 3


def test_a_v1beta1_crd_is_not_served():
    crd = {**widget_crd(), "apiVersion": "apiextensions.k8s.io/v1beta1"}
    with pytest.raises(schemas.CrdError, match='no matches for kind "CustomResourceDefinition"'):
        schemas.load_crds([crd])


def test_conflicting_crds_for_one_group_and_kind_are_refused():
    other = widget_crd()
    other["metadata"]["name"] = "gizmos.example.com"
    other["spec"]["names"]["plural"] = "gizmos"
    with pytest.raises(schemas.CrdError) as caught:
        schemas.load_crds([widget_crd(), other])
    assert '"Widget" is already in use (by "widgets.example.com")' in str(caught.value)
    assert "KindConflict" in str(caught.value)


def test_the_same_crd_given_twice_with_different_contents_is_refused():
    changed = widget_crd()
    changed["spec"]["scope"] = "Cluster"
    with pytest.raises(schemas.CrdError, match="given twice with different contents"):
        schemas.load_crds([widget_crd(), changed])
    assert len(schemas.load_crds([widget_crd(), widget_crd()])) == 1


def test_a_crd_too_large_for_etcd_is_refused():
    crd = widget_crd()
    crd["metadata"]["annotations"] = {"big": "x" * (schemas.crds.MAX_CRD_BYTES + 1)}
    with pytest.raises(schemas.CrdError, match="etcdserver: request is too large"):
        schemas.load_crds([crd])


def test_a_kubectl_list_dump_is_read_item_by_item():
    dump = {
        "apiVersion": "v1",
        "kind": "List",
        "items": [*BY_ID["constrainttemplate"].crds(), widget_crd()],
    }
    registry = schemas.load_crds([dump])
    assert sorted(c.kind for c in registry.crds) == ["ConstraintTemplate", "Provider", "Widget"]


def test_a_document_that_is_not_a_crd_is_named():
    with pytest.raises(
        schemas.CrdError,
        match="expected a apiextensions.k8s.io/v1 CustomResourceDefinition, got v1 ConfigMap",
    ):
        schemas.load_crds([{"apiVersion": "v1", "kind": "ConfigMap"}])


def test_every_served_version_is_a_resource_with_the_storage_version_marked():
    with schemas.using_crds(schemas.load_crds(BY_ID["constrainttemplate"].crds())):
        found = {
            (i.kind, i.version): (i.storage, i.deprecated, i.namespaced)
            for i in schemas.custom_resources()
        }
    assert found[("ConstraintTemplate", "v1")] == (True, False, False)
    assert found[("ConstraintTemplate", "v1beta1")] == (False, False, False)
    assert found[("Provider", "v1alpha1")] == (False, True, False)
    assert found[("Provider", "v1beta1")] == (True, False, False)


def test_served_versions_of_a_crd_are_equivalent_resources():
    with schemas.using_crds(schemas.load_crds(BY_ID["gateway"].crds())):
        found = schemas.equivalent_resources("gateway.networking.k8s.io", "v1", "gateways", VERSION)
    assert found == [("gateway.networking.k8s.io", "v1beta1", "gateways")]


def test_a_rule_on_the_other_served_version_is_type_checked_with_that_versions_schema():
    case = BY_ID["gateway"]
    policy = case.vap(case.typo)
    policy["spec"]["matchConstraints"]["resourceRules"][0]["apiVersions"] = ["v1beta1"]
    with schemas.using_crds(schemas.load_crds(BY_ID["gateway"].crds())):
        warnings = [str(w) for w in validation.warnings_for(policy, version=VERSION)]
    assert len(warnings) == 1
    assert "gateway.networking.k8s.io/v1beta1, Kind=Gateway: ERROR" in warnings[0]


def test_a_crd_update_that_removes_a_field_makes_the_policy_warn():
    case = BY_ID["certificate"]
    policy = case.vap("object.spec.secretName.startsWith('tls-')")
    old = BY_ID["certificate"].crds()
    with schemas.using_crds(schemas.load_crds(old)):
        assert validation.warnings_for(policy, version=VERSION) == []
    updated = copy.deepcopy(old)
    schema = updated[0]["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    del schema["properties"]["spec"]["properties"]["secretName"]
    schema["properties"]["spec"]["required"].remove("secretName")
    with schemas.using_crds(schemas.load_crds(updated)):
        warnings = [str(w) for w in validation.warnings_for(policy, version=VERSION)]
    assert len(warnings) == 1 and "undefined field 'secretName'" in warnings[0]


def test_without_the_crd_a_custom_kind_is_not_type_checked():
    case = BY_ID["certificate"]
    assert validation.warnings_for(case.vap(case.typo), version=VERSION) == []


def test_a_cluster_scoped_cr_gets_no_namespace():
    case = BY_ID["composition"]
    with schemas.using_crds(schemas.load_crds(BY_ID["composition"].crds())):
        result = evaluate_inputs(
            EvaluationInputs([case.vap("request.namespace == ''")], VERSION, object=case.object())
        )
    assert result.allowed, result.message


def test_a_cr_its_crd_would_reject_is_answered_422_before_any_policy():
    case = BY_ID["certificate"]
    bad = case.object("web")
    bad["spec"]["dnsNames"] = "web.example.com"
    bad["spec"]["privateKey"]["algorithm"] = "DSA"
    del bad["spec"]["secretName"]
    with schemas.using_crds(schemas.load_crds(BY_ID["certificate"].crds())):
        result = evaluate_inputs(EvaluationInputs([case.vap(case.valid)], VERSION, object=bad))
    assert result.status_code == 422 and result.reason == "Invalid"
    assert result.message == (
        'Certificate.cert-manager.io "web" is invalid: ['
        "spec.secretName: Required value, "
        'spec.dnsNames: Invalid value: "web.example.com": spec.dnsNames in body must be of type '
        'array: "string", '
        'spec.privateKey.algorithm: Unsupported value: "DSA": supported values: "RSA", "ECDSA", '
        '"Ed25519"]'
    )
    assert result.policies == []


def test_unknown_fields_of_a_cr_are_pruned_with_a_warning():
    case = BY_ID["prometheusrule"]
    obj = case.object()
    obj["spec"]["groups"][0]["owner"] = "team-a"
    with schemas.using_crds(schemas.load_crds(BY_ID["prometheusrule"].crds())):
        result = evaluate_inputs(
            EvaluationInputs([case.vap("!has(object.spec.groups[0].owner)")], VERSION, object=obj)
        )
    assert result.allowed, result.message
    assert 'unknown field "spec.groups[0].owner"' in result.warnings


def test_preserve_unknown_fields_keep_what_they_hold():
    case = BY_ID["composition"]
    obj = case.object()
    obj["spec"]["pipeline"][0]["input"] = {"apiVersion": "x/v1", "kind": "Input", "any": {"a": 1}}
    with schemas.using_crds(schemas.load_crds(BY_ID["composition"].crds())):
        check = check_custom_object(obj)
    assert check is not None and check.errors == [] and check.warnings == []
    assert check.object["spec"]["pipeline"][0]["input"]["any"] == {"a": 1}


def test_int_or_string_fields_take_both_and_nothing_else():
    case = BY_ID["rollout"]
    obj = case.object()
    with schemas.using_crds(schemas.load_crds(BY_ID["rollout"].crds())):
        obj["spec"]["strategy"]["canary"]["maxSurge"] = 1
        assert check_custom_object(obj).errors == []
        obj["spec"]["strategy"]["canary"]["maxSurge"] = True
        errors = [str(e) for e in check_custom_object(obj).errors]
    assert errors == [
        "spec.strategy.canary.maxSurge: Invalid value: true: spec.strategy.canary.maxSurge in "
        'body must be of type integer or string: "boolean"'
    ]


def test_a_list_map_with_a_duplicate_key_is_invalid():
    case = BY_ID["constrainttemplate"]
    obj = case.object()
    obj["spec"]["targets"][0]["code"].append({"engine": "K8sNativeValidation", "source": {}})
    with schemas.using_crds(schemas.load_crds(BY_ID["constrainttemplate"].crds())):
        errors = [str(e) for e in check_custom_object(obj).errors]
    assert errors == ['spec.targets[0].code[1]: Duplicate value: {"engine":"K8sNativeValidation"}']


def test_a_crd_among_the_cluster_objects_is_used_for_the_evaluation():
    case = BY_ID["gateway"]
    result = evaluate_inputs(
        EvaluationInputs(
            [case.map(case.atomic)],
            VERSION,
            object=case.object(),
            resources=BY_ID["gateway"].crds(),
        )
    )
    assert "may not mutate atomic arrays, maps or structs: .spec.addresses" in result.message


def test_a_pattern_is_matched_with_go_regexp_semantics_and_a_bad_one_refuses_the_crd():
    crd = widget_crd()
    color = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
    color["properties"]["color"]["pattern"] = "^[a-z]+$"
    registry = schemas.load_crds([crd])
    with schemas.using_crds(registry):
        ok = check_custom_object(widget(color="blue"))
        bad = check_custom_object(widget(color="Blue"))
    assert ok.errors == []
    assert [str(e) for e in bad.errors] == [
        "spec.color: Invalid value: \"Blue\": spec.color in body should match '^[a-z]+$'"
    ]
    color["properties"]["color"]["pattern"] = "(?<=x)y"  # lookbehind: not RE2
    with pytest.raises(schemas.CrdError, match="pattern: Invalid value"):
        schemas.load_crds([crd])
