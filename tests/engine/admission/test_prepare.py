"""The documents' side of an evaluation, kept per document content between evaluations."""

from __future__ import annotations

import copy
import gc

from policyeditor.engine.admission import prepare
from policyeditor.engine.admission.evaluation import AdmissionRequest, evaluate
from policyeditor.engine.versions import DEFAULT_VERSION

RULES = {
    "resourceRules": [
        {
            "apiGroups": [""],
            "apiVersions": ["v1"],
            "operations": ["CREATE"],
            "resources": ["configmaps"],
        }
    ]
}


def policy(expression="object.data.size == '1'", message="too big", **spec):
    return {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": "size"},
        "spec": {
            "matchConstraints": RULES,
            "variables": [{"name": "size", "expression": "object.data.size"}],
            "validations": [{"expression": expression, "message": message}],
            **spec,
        },
    }


def binding(actions=("Deny",)):
    return {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": "size-binding"},
        "spec": {"policyName": "size", "validationActions": list(actions)},
    }


def request(size="1"):
    configmap = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "c", "namespace": "default"},
        "data": {"size": size},
    }
    return AdmissionRequest.build(object=configmap)


def test_the_same_documents_are_prepared_once():
    docs = [policy(), binding()]
    first = prepare.prepare(docs, DEFAULT_VERSION)
    assert prepare.prepare(copy.deepcopy(docs), DEFAULT_VERSION) is first


def test_a_repeated_evaluation_answers_exactly_as_the_first():
    docs = [policy(), binding()]
    first = evaluate(docs, request("2")).to_dict()
    again = evaluate(docs, request("2")).to_dict()
    assert again == first
    assert first["result"] == "deny"
    assert first["message"].endswith("denied request: too big")


def test_documents_mutated_after_an_evaluation_are_evaluated_as_they_are_now():
    docs = [policy(), binding()]
    assert evaluate(docs, request("2")).result == "deny"
    docs[1]["spec"]["validationActions"] = ["Warn"]
    warned = evaluate(docs, request("2"))
    assert warned.result == "warn"
    docs[0]["spec"]["validations"][0]["message"] = "far too big"
    assert "far too big" in evaluate(docs, request("2")).warnings[0]
    docs[0]["spec"]["variables"].clear()
    docs[0]["spec"]["validations"][0]["expression"] = "variables.size == '1'"
    assert evaluate(docs, request("1")).result == "error"


def test_the_cached_documents_are_not_the_callers():
    docs = [policy(), binding()]
    prepared = prepare.prepare(docs, DEFAULT_VERSION)
    cached_policy, cached_bindings = prepared.vap_pairs[0]
    assert cached_policy == prepare.defaulted(docs[0])
    assert cached_policy["spec"]["validations"] is not docs[0]["spec"]["validations"]
    assert cached_bindings[0] is not docs[1]


def test_values_equal_in_python_but_of_other_types_are_told_apart():
    # 1 == 1.0 == True in Python, yet a denial shows each its own way.
    messages = []
    for message in (1, 1.0, True):
        docs = [policy(expression="false", message=message), binding()]
        messages.append(evaluate(docs, request()).message.rsplit(": ", 1)[1])
    assert messages == ["1", "1.0", "True"]


def test_documents_marshal_cannot_key_are_evaluated_without_the_cache():
    class Document(dict):
        pass

    docs = [Document(policy()), binding()]
    assert prepare._key(docs, DEFAULT_VERSION, None, None) is None
    assert evaluate(docs, request("2")).result == "deny"


def test_filters_are_part_of_the_key():
    docs = [policy(), binding()]
    unfiltered = prepare.prepare(docs, DEFAULT_VERSION)
    filtered = prepare.prepare(docs, DEFAULT_VERSION, policy="other")
    assert filtered is not unfiltered
    assert filtered.notes == ("policy 'other' not found",)
    assert prepare.prepare(docs, DEFAULT_VERSION, policy=True).notes == ("policy True not found",)


def test_the_cache_keeps_a_bounded_number_of_entries():
    for index in range(prepare._CACHE_ENTRIES + 5):
        prepare.prepare([policy(message=f"m{index}")], DEFAULT_VERSION)
    assert len(prepare._CACHE) == prepare._CACHE_ENTRIES


def test_large_documents_are_not_kept(monkeypatch):
    monkeypatch.setattr(prepare, "_MAX_KEY_BYTES", 100)
    docs = [policy(), binding()]
    assert prepare.prepare(docs, DEFAULT_VERSION) is not prepare.prepare(docs, DEFAULT_VERSION)


def test_an_evaluation_leaves_no_cyclic_garbage_behind():
    docs = [policy(), binding()]
    evaluate(docs, request("2"))  # compiles and prepares
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        for size in ("1", "2"):
            evaluate(docs, request(size))
        assert gc.collect() == 0
    finally:
        if enabled:
            gc.enable()


def test_documents_whose_kind_is_no_string_are_other_objects_not_an_internal_error():
    pod = AdmissionRequest.build(
        object={"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a"}}
    )
    odd = [
        {"kind": ["ValidatingAdmissionPolicy"]},
        {"kind": {}, "apiVersion": "admissionregistration.k8s.io/v1"},
    ]
    result = evaluate(odd, pod)
    assert result.errors == ["no ValidatingAdmissionPolicy or MutatingAdmissionPolicy to evaluate"]
