"""Warnings about bindings, policies and params that do not fit together."""

from __future__ import annotations

import copy

from policyeditor.engine.validation.bundle import bundle_warnings
from tests.engine.validation.fixtures import MAP, MAPB, VAP, VAPB


def _messages(docs) -> list[tuple[int, str]]:
    return [(index, str(error)) for index, error in bundle_warnings(docs)]


def test_matching_bundles_give_no_warnings():
    assert _messages([VAP, VAPB, MAP, MAPB]) == []


def test_binding_without_its_policy_is_reported():
    assert _messages([VAPB]) == [
        (
            0,
            "spec.policyName: no ValidatingAdmissionPolicy 'demo-policy.example.com' in these documents: "
            "a binding whose policy does not exist is silently ignored",
        )
    ]


def test_binding_kind_must_match_policy_kind():
    binding = copy.deepcopy(MAPB)
    binding["spec"]["policyName"] = "demo-policy.example.com"
    assert _messages([VAP, binding])[0][1].startswith("spec.policyName: no MutatingAdmissionPolicy")


def test_param_ref_and_param_kind_must_come_together():
    binding = copy.deepcopy(VAPB)
    binding["spec"]["paramRef"] = {"name": "p", "parameterNotFoundAction": "Deny"}
    assert _messages([VAP, binding]) == [
        (
            1,
            "spec.paramRef: policy 'demo-policy.example.com' has no paramKind, so this paramRef is ignored",
        )
    ]
    bare = copy.deepcopy(MAPB)
    del bare["spec"]["paramRef"]
    assert _messages([MAP, bare]) == [
        (
            1,
            "spec.paramRef: policy 'sidecar-policy.example.com' has a paramKind but this binding no "
            "paramRef: `params` is null in its expressions",
        )
    ]


def test_odd_documents_are_ignored():
    assert (
        _messages(
            [
                "x",
                {"kind": "ValidatingAdmissionPolicyBinding", "spec": "y"},
                {"kind": "ValidatingAdmissionPolicyBinding"},
            ]
        )
        == []
    )


def test_unhashable_kinds_are_ignored():
    assert _messages([{"kind": ["x"]}, {"kind": {"a": 1}, "spec": {}}]) == []
