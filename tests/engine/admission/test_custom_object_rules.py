"""Real CRDs' x-kubernetes-validations rules and defaults in an evaluation, as kube-apiserver runs them."""

from __future__ import annotations

import copy

from policyeditor.engine import schemas
from policyeditor.engine.admission.inputs import EvaluationInputs, evaluate_inputs
from policyeditor.engine.manifests import load_file
from tests.crd_cases import BY_ID

VERSION = "1.34"


def _evaluate(case_id: str, expression: str, obj: dict, **more):
    case = BY_ID[case_id]
    crds = load_file(str(case.path))
    with schemas.using_crds(schemas.load_crds(crds)):
        return evaluate_inputs(
            EvaluationInputs([case.vap(expression)], VERSION, object=obj, **more)
        )


def test_every_rule_of_the_real_crds_compiles_and_a_broken_one_refuses_the_crd():
    from policyeditor.engine.cel.crd_rules import crd_rule_errors

    for case in BY_ID.values():
        for document in load_file(str(case.path)):
            assert crd_rule_errors(document) == [], case.id
    gateway = load_file(str(BY_ID["gateway"].path))
    assert str(gateway).count("'rule': ") > 30
    listeners = gateway[0]["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"][
        "spec"
    ]["properties"]["listeners"]
    listeners["x-kubernetes-validations"][0]["rule"] = "self.all(l, l.protocol in)"
    errors = [str(e) for e in crd_rule_errors(gateway[0])]
    assert len(errors) == 1
    assert errors[0].startswith(
        "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[listeners]"
        '.x-kubernetes-validations[0].rule: Invalid value: "self.all(l, l.protocol in)": '
        "compilation failed: ERROR: <input>:1:"
    )


def test_a_gateway_keeping_the_rules_of_its_crd_is_admitted():
    result = _evaluate("gateway", "true", BY_ID["gateway"].object("gw"))
    assert result.allowed, result.message


def test_a_gateway_breaking_a_real_rule_is_rejected_with_the_rules_message():
    gateway = BY_ID["gateway"].object("gw")
    gateway["spec"]["listeners"] = [
        {"name": "tcp", "port": 9000, "protocol": "TCP", "hostname": "db.example.com"}
    ]
    result = _evaluate("gateway", "true", gateway)
    assert result.status_code == 422 and result.reason == "Invalid"
    assert result.message == (
        'Gateway.gateway.networking.k8s.io "gw" is invalid: spec.listeners: Invalid value: '
        "\"array\": hostname must not be specified for protocols ['TCP', 'UDP']"
    )
    assert result.policies == []


def test_a_gateway_with_two_listeners_of_one_name_breaks_the_list_key_and_the_rule():
    gateway = BY_ID["gateway"].object("gw")
    gateway["spec"]["listeners"].append({"name": "http", "port": 81, "protocol": "HTTP"})
    result = _evaluate("gateway", "true", gateway)
    assert result.status_code == 422
    assert result.causes == [
        'spec.listeners[1]: Duplicate value: {"name":"http"}',
        'spec.listeners: Invalid value: "array": Listener name must be unique within the Gateway',
    ]


def test_a_transition_rule_blocks_the_change_on_update_only():
    case = BY_ID["composition"]
    old = case.object("c")
    new = copy.deepcopy(old)
    new["spec"]["compositeTypeRef"]["kind"] = "XOther"
    assert _evaluate("composition", "true", new).allowed  # CREATE: no oldSelf
    same = _evaluate("composition", "true", new, old_object=copy.deepcopy(new), operation="UPDATE")
    assert same.allowed, same.message
    changed = _evaluate("composition", "true", new, old_object=old, operation="UPDATE")
    assert changed.status_code == 422
    assert changed.message == (
        'Composition.apiextensions.crossplane.io "c" is invalid: spec.compositeTypeRef: '
        'Invalid value: "object": Value is immutable'
    )


def test_the_crds_defaults_are_filled_in_before_policies_see_the_object():
    gateway = BY_ID["gateway"].object("gw")
    assert "allowedRoutes" not in gateway["spec"]["listeners"][0]
    result = _evaluate(
        "gateway", "object.spec.listeners[0].allowedRoutes.namespaces.from == 'Same'", gateway
    )
    assert result.allowed, result.message
    composition = BY_ID["composition"].object("c")
    del composition["spec"]["mode"]
    result = _evaluate("composition", "object.spec.mode == 'Resources'", composition)
    assert result.allowed, result.message
