"""Loading our own `*.policytest.yaml` suites: every documented field, strict about the rest."""

from __future__ import annotations

from pathlib import Path

import pytest

from policyeditor.engine.suites.formats.policytest import load_policytest
from policyeditor.engine.suites.model import UNSET, SuiteError
from policyeditor.engine.versions import DEFAULT_VERSION
from tests.vectors import DATA

FEATURES = DATA / "suites" / "passing" / "policytest" / "features.policytest.yaml"
FAILING = DATA / "suites" / "failing"

POLICY = """apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: p}
spec:
  validations: [{expression: "true"}]
"""


def _write(tmp_path: Path, suite: str) -> Path:
    (tmp_path / "policy.yaml").write_text(POLICY)
    path = tmp_path / "s.policytest.yaml"
    path.write_text(
        "apiVersion: policyeditor.dev/v1\nkind: PolicyTest\npolicies: [policy.yaml]\n" + suite
    )
    return path


def _one_case(tmp_path: Path, case: str):
    (loaded,) = load_policytest(_write(tmp_path, "cases:\n" + case))
    return loaded


def test_policies_split_into_admission_documents_and_resources():
    cases = load_policytest(FEATURES)
    kinds = sorted(d["kind"] for d in cases[0].documents)
    assert kinds.count("ValidatingAdmissionPolicy") == 3
    assert kinds.count("ValidatingAdmissionPolicyBinding") == 2
    assert [r["kind"] for r in cases[0].resources] == ["ConfigMap"]


def test_suite_and_case_versions_are_normalized():
    cases = {c.name: c for c in load_policytest(FEATURES)}
    assert cases["denies-six-replicas-through-the-prod-binding"].version == "1.36"
    assert cases["inline-params-without-a-binding"].version == "1.34"


def test_object_files_are_read_relative_to_the_suite():
    case = {c.name: c for c in load_policytest(FEATURES)}["allows-an-update-within-the-limit"]
    assert case.object["spec"]["replicas"] == 4
    assert case.old_object["spec"]["replicas"] == 3


def test_inline_params_namespace_object_user_request_and_authorizer():
    cases = {c.name: c for c in load_policytest(FEATURES)}
    assert cases["inline-params-without-a-binding"].params["data"] == {"maxReplicas": "3"}
    assert cases["denies-six-replicas-through-the-prod-binding"].params is UNSET
    assert cases["frozen-namespace-denies"].namespace_object["metadata"]["labels"] == {
        "frozen": "true"
    }
    assert cases["dry-run-passes-a-frozen-namespace"].request == {"dryRun": True}
    assert cases["admins-may-delete"].user_info == {
        "username": "root@example.com",
        "groups": ["admins"],
    }
    assert (
        cases["approved-deletes-through-a-path-check"].authorizer[0]["path"] == "/approve-deletes"
    )


def test_expectations_are_carried_over():
    cases = {c.name: c for c in load_policytest(FEATURES)}
    deny = cases["denies-six-replicas-through-the-prod-binding"].expect
    assert (deny.result, deny.allowed) == ("deny", False)
    assert deny.audit_annotations == {"replicas": "6"}
    assert cases["allows-an-update-within-the-limit"].expect.warnings == []
    assert cases["mutation-labels-the-team"].expect.object["metadata"]["labels"] == {
        "team": "alice"
    }
    assert cases["warns-through-the-staging-binding"].expect.object is UNSET


def test_version_defaults_to_the_newest(tmp_path):
    case = _one_case(
        tmp_path, "- name: a\n  object: {kind: ConfigMap}\n  expect: {result: allow}\n"
    )
    assert case.version == DEFAULT_VERSION


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        (
            "- name: a\n  object: {}\n  expect: {result: denied}\n",
            "expect.result: Unsupported value: 'denied'",
        ),
        ("- name: a\n  object: {}\n  expect: {}\n", "expect: Required value"),
        ("- name: a\n  expect: {result: allow}\n", "object or oldObject is required"),
        (
            "- name: a\n  object: {}\n  objects: {}\n  expect: {result: allow}\n",
            'unknown field "objects"',
        ),
        (
            "- name: a\n  object: {}\n  policy: q\n  expect: {result: allow}\n",
            "policy 'q' not found",
        ),
        (
            "- name: a\n  object: {}\n  binding: b\n  expect: {result: allow}\n",
            "binding 'b' not found",
        ),
        (
            "- name: a\n  object: {}\n  operation: PATCH\n  expect: {result: allow}\n",
            "operation: Unsupported value",
        ),
        (
            "- name: a\n  objectFile: nope.yaml\n  expect: {result: allow}\n",
            "nope.yaml: object not found",
        ),
        (
            "- name: a\n  object: {}\n  kubernetesVersion: '1.20'\n  expect: {result: allow}\n",
            "1.20 is not supported",
        ),
        (
            "- name: a\n  object: {}\n  expect: {allowed: maybe}\n",
            "expect.allowed: expected true or false",
        ),
        (
            "- name: a\n  object: {}\n  authorizer: [{decision: yes}]\n  expect: {result: allow}\n",
            "authorizer[0].decision",
        ),
    ],
)
def test_a_malformed_case_fails_alone_with_the_field_named(tmp_path, case, expected):
    loaded = _one_case(tmp_path, case)
    assert expected in loaded.error


def test_duplicate_case_names_are_reported(tmp_path):
    suite = "cases:\n" + "- name: a\n  object: {}\n  expect: {result: allow}\n" * 2
    cases = load_policytest(_write(tmp_path, suite))
    assert cases[0].error is None
    assert "Duplicate value: 'a'" in cases[1].error


@pytest.mark.parametrize(
    ("suite", "expected"),
    [
        ("cases: []\n", "cases: Required value"),
        (
            "kubernetesVersion: nope\ncases: [{name: a}]\n",
            "kubernetesVersion: not a Kubernetes version",
        ),
    ],
)
def test_a_malformed_suite_raises_a_suite_error(tmp_path, suite, expected):
    with pytest.raises(SuiteError) as caught:
        load_policytest(_write(tmp_path, suite))
    assert expected in caught.value.message


def test_unknown_top_level_field_is_refused():
    with pytest.raises(SuiteError, match='unknown field "surprise"'):
        load_policytest(FAILING / "malformed.policytest.yaml")


def test_wrong_kind_and_missing_policies_are_refused(tmp_path):
    path = tmp_path / "a.policytest.yaml"
    path.write_text("apiVersion: policyeditor.dev/v1\nkind: Test\n")
    with pytest.raises(SuiteError, match="kind: Unsupported value: 'Test'"):
        load_policytest(path)
    path.write_text(
        "apiVersion: policyeditor.dev/v1\nkind: PolicyTest\npolicies: [missing.yaml]\ncases: []\n"
    )
    with pytest.raises(SuiteError, match="policies file not found"):
        load_policytest(path)


def test_policies_without_any_policy_are_refused(tmp_path):
    (tmp_path / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    path = tmp_path / "a.policytest.yaml"
    path.write_text(
        "apiVersion: policyeditor.dev/v1\nkind: PolicyTest\npolicies: [cm.yaml]\ncases: []\n"
    )
    with pytest.raises(SuiteError, match="no ValidatingAdmissionPolicy or MutatingAdmissionPolicy"):
        load_policytest(path)


def test_defaulting_is_on_unless_the_suite_or_the_case_turns_it_off(tmp_path):
    case = "- name: {name}\n  object: {{}}\n{extra}  expect: {{result: allow}}\n"
    suite = "defaulting: false\ncases:\n" + "".join(
        [
            case.format(name="suite-off", extra=""),
            case.format(name="case-on", extra="  defaulting: true\n"),
        ]
    )
    off, on = load_policytest(_write(tmp_path, suite))
    assert (off.defaulting, on.defaulting) == (False, True)
    assert _one_case(tmp_path, case.format(name="plain", extra="")).defaulting is True


def test_a_defaulting_flag_that_is_not_a_boolean_is_refused(tmp_path):
    loaded = _one_case(
        tmp_path, "- name: a\n  object: {}\n  defaulting: 'no'\n  expect: {result: allow}\n"
    )
    assert "cases[0].defaulting: Invalid value: 'no': must be true or false" in loaded.error
    with pytest.raises(SuiteError, match="defaulting: Invalid value"):
        load_policytest(_write(tmp_path, "defaulting: 1\ncases: [{name: a}]\n"))
