"""Loading kaptest manifests: references resolved into objects, malformed manifests explained."""

from __future__ import annotations

from pathlib import Path

import pytest

from policyeditor.engine.suites.formats.kaptest import load_kaptest
from policyeditor.engine.suites.model import UNSET, SuiteError
from tests.vectors import external_path

TESTDATA = ("kaptest", "internal", "tester", "testdata")


def _manifest(*parts: str) -> Path:
    return external_path(*TESTDATA, *parts)


def test_standard_resources_infer_create_update_and_delete():
    cases = load_kaptest(_manifest("vap-standard-resources.test", "kaptest.yaml"))
    operations = [c.operation for c in cases]
    assert operations[:4] == ["CREATE", "CREATE", "UPDATE", "UPDATE"]
    delete = next(c for c in cases if c.policy == "deployment-check-deletable")
    assert delete.operation == "DELETE"
    assert delete.object is None
    assert delete.old_object["metadata"]["name"] == "deletable"
    assert all(c.error is None and c.cel_only for c in cases)


def test_expectations_map_admit_to_allow_and_keep_skip_and_deny():
    cases = load_kaptest(_manifest("vap-standard-resources.test", "kaptest.yaml"))
    results = {c.expect.result for c in cases}
    assert results == {"allow", "deny", "skip"}


def test_kaptest_requests_are_dry_run():
    cases = load_kaptest(_manifest("vap-standard-resources.test", "kaptest.yaml"))
    assert all(c.request == {"dryRun": True, "namespace": ""} for c in cases)


def test_param_is_found_by_the_policy_param_kind_and_name():
    cases = load_kaptest(_manifest("vap-with-params.test", "kaptest.yaml"))
    assert cases[0].params["kind"] == "ConfigMap"
    assert cases[0].params["metadata"]["name"] == "config1"


def test_policy_without_param_kind_gets_no_params():
    cases = load_kaptest(_manifest("vap-standard-resources.test", "kaptest.yaml"))
    assert cases[0].params is UNSET


def test_namespace_object_comes_from_the_object_namespace():
    cases = load_kaptest(_manifest("vap-with-namespaces.test", "kaptest.yaml"))
    assert cases[0].namespace_object["metadata"]["annotations"] == {"max-replicas": "5"}


def test_user_info_name_becomes_the_username():
    cases = load_kaptest(_manifest("vap-with-userinfo.test", "kaptest.yaml"))
    assert cases[1].user_info == {"username": "system:serviceaccount:foo:default"}


def test_case_names_read_like_kaptest_summary_lines():
    cases = load_kaptest(_manifest("vap-standard-resources.test", "kaptest.yaml"))
    assert (
        cases[2].name
        == "deployment-replicas - (UPDATE) Deployment:mutable -> Deployment:ok - ADMIT"
    )


@pytest.mark.parametrize(
    ("parts", "expected"),
    [
        (("invalid-config.yaml",), 'unknown field "case"'),
        (("invalid-format.yaml",), "mapping values are not allowed"),
        (
            ("invalid-policy-file-not-found.yaml",),
            "validatingAdmissionPolicies[0]: not-exist.yaml: file not found",
        ),
    ],
)
def test_malformed_manifests_raise_a_suite_error_that_says_why(parts, expected):
    with pytest.raises(SuiteError) as caught:
        load_kaptest(_manifest(*parts))
    assert expected in caught.value.message


@pytest.mark.parametrize(
    ("parts", "expected"),
    [
        (
            ("vap-standard-resources.test", "invalid-no-obj.yaml"),
            "Deployment 'not-exist' not found",
        ),
        (("vap-custom-resources.test", "invalid-no-obj.yaml"), "HTTPProxy 'not-exist' not found"),
        (
            ("vap-standard-resources.test", "invalid-no-policy.yaml"),
            "ValidatingAdmissionPolicy 'not-exist' not found",
        ),
        (("vap-with-namespaces.test", "invalid-no-namespace.yaml"), "Namespace 'not-exist'"),
        (("vap-with-params.test", "invalid-no-params.yaml"), "ConfigMap 'not-exist' not found"),
    ],
)
def test_missing_references_make_the_case_fail_with_the_reference_named(parts, expected):
    cases = load_kaptest(_manifest(*parts))
    assert len(cases) == 1
    assert expected in cases[0].error


def test_manifest_without_test_suites_is_refused(tmp_path):
    (tmp_path / "policy.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    manifest = tmp_path / "kaptest.yaml"
    manifest.write_text("validatingAdmissionPolicies: [policy.yaml]\nresources: [policy.yaml]\n")
    with pytest.raises(SuiteError, match="at least one test suite is required"):
        load_kaptest(manifest)


def test_unsupported_manifest_version_is_refused(tmp_path):
    manifest = tmp_path / "kaptest.yaml"
    manifest.write_text("version: v9\npolicies: [p.yaml]\nvapTestSuites: []\n")
    with pytest.raises(SuiteError, match="unsupported version 'v9'"):
        load_kaptest(manifest)


def test_v02_layout_with_map_suites_and_expect_object(tmp_path):
    (tmp_path / "policy.yaml").write_text(
        "apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingAdmissionPolicy\n"
        "metadata: {name: add-label}\nspec: {mutations: []}\n"
    )
    (tmp_path / "resources.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: input}\n---\n"
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: expected, labels: {a: b}}\n"
    )
    manifest = tmp_path / "kaptest.yaml"
    manifest.write_text(
        "version: v1alpha1\npolicies: [policy.yaml]\nresources: [resources.yaml]\n"
        "mapTestSuites:\n- policy: add-label\n  tests:\n"
        "  - object: {kind: ConfigMap, name: input}\n    expect: mutate\n"
        "    expectObject: {kind: ConfigMap, name: expected}\n"
    )
    (case,) = load_kaptest(manifest)
    assert case.error is None
    assert case.expect.allowed is True
    # kaptest renames the expected object after the input unless disableNameOverwrite is set
    assert case.expect.object["metadata"] == {"name": "input", "labels": {"a": "b"}}


def test_mutate_without_expect_object_is_a_case_error(tmp_path):
    (tmp_path / "policy.yaml").write_text(
        "apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingAdmissionPolicy\nmetadata: {name: m}\nspec: {}\n"
    )
    (tmp_path / "resources.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: input}\n"
    )
    manifest = tmp_path / "kaptest.yaml"
    manifest.write_text(
        "policies: [policy.yaml]\nresources: [resources.yaml]\n"
        "mapTestSuites:\n- policy: m\n  tests:\n  - object: {kind: ConfigMap, name: input}\n    expect: mutate\n"
    )
    (case,) = load_kaptest(manifest)
    assert "expectObject must be given when mutate expected" in case.error


def test_unknown_expectation_is_a_case_error_listing_the_supported_ones(tmp_path):
    source = _manifest("vap-standard-resources.test")
    policy = (source.parent / "vap-standard-resources.yaml").read_text()
    (tmp_path / "policy.yaml").write_text(policy)
    (tmp_path / "resources.yaml").write_text((source / "resources.yaml").read_text())
    manifest = tmp_path / "kaptest.yaml"
    manifest.write_text(
        "validatingAdmissionPolicies: [policy.yaml]\nresources: [resources.yaml]\n"
        "testSuites:\n- policy: deployment-replicas\n  tests:\n"
        "  - object: {kind: Deployment, name: ok}\n    expect: maybe\n"
    )
    (case,) = load_kaptest(manifest)
    assert "expect: Unsupported value: 'maybe'" in case.error
    assert '"admit"' in case.error


def _with_binding(tmp_path: Path, binding_line: str) -> Path:
    (tmp_path / "policy.yaml").write_text(
        "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata: {name: p}\n"
        "spec: {validations: [{expression: 'true'}]}\n---\n"
        "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\nmetadata: {name: b}\n"
        "spec: {policyName: p, validationActions: [Warn]}\n"
    )
    (tmp_path / "resources.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"
    )
    manifest = tmp_path / "kaptest.yaml"
    manifest.write_text(
        "policies: [policy.yaml]\nresources: [resources.yaml]\nvapTestSuites:\n- policy: p\n"
        + binding_line
        + "  tests:\n  - object: {kind: ConfigMap, name: c}\n    expect: admit\n"
    )
    return manifest


def test_bindings_take_part_only_when_the_suite_names_one(tmp_path):
    (alone,) = load_kaptest(_with_binding(tmp_path, ""))
    assert [d["kind"] for d in alone.documents] == ["ValidatingAdmissionPolicy"]
    (bound,) = load_kaptest(_with_binding(tmp_path, "  binding: b\n"))
    assert [d["kind"] for d in bound.documents] == [
        "ValidatingAdmissionPolicy",
        "ValidatingAdmissionPolicyBinding",
    ]
    assert bound.binding == "b"
    (missing,) = load_kaptest(_with_binding(tmp_path, "  binding: nope\n"))
    assert "ValidatingAdmissionPolicyBinding 'nope' not found" in missing.error
