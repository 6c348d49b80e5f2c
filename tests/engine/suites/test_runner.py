"""Running suites end to end: the external kaptest manifests, our kat and policytest suites."""

from __future__ import annotations

import pytest

from policyeditor.engine.suites.runner import run
from tests.vectors import DATA, external_path

SUITES = DATA / "suites"
KAT = SUITES / "passing" / "kat"
TESTDATA = ("kaptest", "internal", "tester", "testdata")

# What kaptest's own tester_test.go runs and expects to pass, with its number of cases.
KAPTEST_PASSING = [
    (("kaptest", "examples", "simple", "simple-policy.test", "kaptest.yaml"), 3),
    (("kaptest", "examples", "complicated", "complicated-policy.test", "kaptest.yaml"), 4),
    ((*TESTDATA, "vap-standard-resources.test", "kaptest.yaml"), 12),
    ((*TESTDATA, "vap-custom-resources.test", "kaptest.yaml"), 2),
    ((*TESTDATA, "vap-with-params.test", "kaptest.yaml"), 2),
    ((*TESTDATA, "vap-with-namespaces.test", "kaptest.yaml"), 2),
    ((*TESTDATA, "vap-with-userinfo.test", "kaptest.yaml"), 2),
]
KAPTEST_FAILING = [
    ((*TESTDATA, "invalid-format.yaml"), "mapping values are not allowed in this context"),
    ((*TESTDATA, "invalid-config.yaml"), 'invalid kaptest manifest: unknown field "case"'),
    (
        (*TESTDATA, "invalid-policy-file-not-found.yaml"),
        "validatingAdmissionPolicies[0]: not-exist.yaml: file not found",
    ),
    (
        (*TESTDATA, "vap-standard-resources.test", "invalid-no-obj.yaml"),
        "Deployment 'not-exist' not found in the resources files",
    ),
    (
        (*TESTDATA, "vap-standard-resources.test", "invalid-no-policy.yaml"),
        "ValidatingAdmissionPolicy 'not-exist' not found in the policy files",
    ),
    (
        (*TESTDATA, "vap-custom-resources.test", "invalid-no-obj.yaml"),
        "HTTPProxy 'not-exist' not found in the resources files",
    ),
    (
        (*TESTDATA, "vap-with-params.test", "invalid-no-params.yaml"),
        "ConfigMap 'not-exist' not found in the resources files",
    ),
    (
        (*TESTDATA, "vap-with-namespaces.test", "invalid-no-namespace.yaml"),
        "Namespace 'not-exist' (the object's namespace) not found",
    ),
]


def _reasons(report) -> str:
    return "\n".join(
        [*(str(e) for e in report.errors), *(f for r in report.results for f in r.failures)]
    )


@pytest.mark.parametrize(
    ("parts", "count"),
    KAPTEST_PASSING,
    ids=lambda p: "/".join(p[-2:]) if isinstance(p, tuple) else str(p),
)
def test_the_kaptest_manifests_kaptest_passes_pass_here(parts, count):
    report = run([external_path(*parts)])
    assert report.ok, _reasons(report)
    assert (report.passed, report.failed) == (count, 0)


@pytest.mark.parametrize(
    ("parts", "message"),
    KAPTEST_FAILING,
    ids=lambda p: "/".join(p[-2:]) if isinstance(p, tuple) else "",
)
def test_every_invalid_kaptest_manifest_fails_saying_what_is_wrong(parts, message):
    report = run([external_path(*parts)])
    assert not report.ok
    assert report.passed == 0
    assert message in report.to_text()


def test_the_kaptest_tree_runs_unchanged_as_one_directory():
    report = run([external_path("kaptest")])
    assert report.ok, _reasons(report)
    assert report.passed == sum(count for _, count in KAPTEST_PASSING)


def test_kaptest_error_expectation_sees_a_runtime_error():
    report = run(
        [external_path("kaptest", "examples", "simple", "simple-policy.test", "kaptest.yaml")],
        run_regex="error-policy",
    )
    (result,) = report.results
    assert result.passed
    assert result.outcome["result"] == "error"
    assert "no such key: rrrrreplicas" in result.outcome["message"]


def test_kaptest_ignores_match_constraints():
    # the policy's rules name apiGroups [""] for deployments, which never matches apps/v1
    report = run(
        [external_path(*TESTDATA, "vap-standard-resources.test", "kaptest.yaml")],
        run_regex=r"Deployment:bad - DENY$",
    )
    assert report.results and all(r.outcome["result"] == "deny" for r in report.results)


@pytest.mark.parametrize(
    ("suite", "count"),
    [
        ("replica-limit", 6),
        ("namespace-owner", 3),
        ("pod-exec", 2),
        ("critical-workloads", 4),
        ("require-app-label", 3),
        ("configmap-defaults", 5),
    ],
)
def test_our_kat_suites_pass(suite, count):
    report = run([KAT / suite])
    assert report.ok, _reasons(report)
    assert report.passed == count


def test_our_policytest_suite_passes():
    report = run([SUITES / "passing" / "policytest"])
    assert report.ok, _reasons(report)
    assert report.passed == 12


def test_a_param_lookup_that_finds_nothing_denies_under_deny_action():
    report = run([KAT / "replica-limit"], run_regex="no-params-found")
    (result,) = report.results
    assert result.passed, result.failures
    assert (
        "no params found for policy binding with `Deny` parameterNotFoundAction"
        in result.outcome["message"]
    )


def test_connect_requests_reach_a_pods_exec_policy():
    report = run([KAT / "pod-exec"])
    outcomes = {r.case.name: r.outcome for r in report.results}
    assert outcomes["pod-exec.dev-execs-into-app.deny"]["result"] == "deny"
    assert outcomes["pod-exec.sre-execs-into-app.allow"]["result"] == "allow"


def test_the_mocked_authorizer_decides_the_permission_check():
    report = run([KAT / "critical-workloads"])
    outcomes = {r.case.name: r.outcome["result"] for r in report.results}
    assert outcomes == {
        "critical-workloads.permitted.allow": "allow",
        "critical-workloads.refused.deny": "deny",
        "critical-workloads.no-opinion.deny": "deny",
        "critical-workloads.not-critical.allow": "allow",
    }


def test_warn_and_audit_actions_show_in_the_outcome():
    report = run([KAT / "require-app-label"], run_regex="unlabelled")
    for result in report.results:
        assert result.outcome["allowed"] is True
        assert result.outcome["warnings"] == [
            "Validation failed for ValidatingAdmissionPolicy 'require-app-label' with binding "
            "'require-app-label-staged': every workload needs an app label"
        ]


def test_a_suite_wide_version_applies_to_suites_without_one():
    report = run([KAT / "configmap-defaults"], version="1.34")
    assert not report.ok
    assert "requires Kubernetes 1.36" in _reasons(report)


def _failing(run_regex: str):
    (result,) = run([SUITES / "failing"], run_regex=run_regex).results
    assert not result.passed
    return result.failures


def test_a_wrong_golden_file_fails_with_a_diff_of_the_difference():
    (failure,) = _failing("wrong-gold")
    assert failure.splitlines() == [
        "the object after mutation differs from the expected one:",
        "--- expected",
        "+++ actual",
        "@@ -10,4 +10,4 @@",
        "   namespace: default",
        " data:",
        "   color: blue",
        "-  log-level: debug",
        "+  log-level: info",
    ]


def test_a_mutation_without_golden_file_fails():
    (failure,) = _failing("missing-gold")
    assert failure.startswith(
        "policy mutated the object but no .gold.yaml file was provided:\n--- expected"
    )
    assert "+  log-level: info" in failure


def test_a_wrong_message_file_fails_showing_the_actual_message():
    (failure,) = _failing("wrong-message")
    assert failure.startswith("expected the message 'replicas must be at most 6', got ")
    assert "replicas must be at most 5" in failure


def test_a_wrong_expect_token_fails_with_the_denial():
    (failure,) = _failing("expected-allow")
    assert failure.startswith("expected the request to be allowed, it was denied (result deny): ")


def test_policytest_mismatches_list_every_reason():
    failures = _failing("expects-allow-but-is-denied")
    assert [f.split(",")[0].split(":")[0] for f in failures] == [
        "expected result allow",
        "expected a message containing 'this text is not in the message'",
        "expected the audit annotations {}",
    ]


def test_the_failing_tree_counts_every_case_and_malformed_suite():
    report = run([SUITES / "failing"])
    assert (report.passed, report.failed) == (0, 11)
    assert report.to_text().splitlines()[-1] == "0 passed, 11 failed"


MAP_POLICY = """apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicy
metadata: {name: add-team}
spec:
  reinvocationPolicy: Never
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["secrets"]}
  matchConditions:
  - name: not-system
    expression: "!object.metadata.name.startsWith('system-')"
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: 'Object{metadata: Object.metadata{labels: {"team": "a"}}}'
"""
MAP_RESOURCES = """apiVersion: v1
kind: ConfigMap
metadata: {name: input}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: system-input}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: expected, labels: {team: a}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: wrong, labels: {team: b}}
"""


def _map_manifest(tmp_path, tests: str):
    (tmp_path / "policy.yaml").write_text(MAP_POLICY)
    (tmp_path / "resources.yaml").write_text(MAP_RESOURCES)
    manifest = tmp_path / "kaptest.yaml"
    manifest.write_text(
        "version: v1alpha1\npolicies: [policy.yaml]\nresources: [resources.yaml]\n"
        "mapTestSuites:\n- policy: add-team\n  tests:\n" + tests
    )
    return manifest


def test_kaptest_mutate_compares_the_mutated_object_with_expect_object(tmp_path):
    # the rules name secrets, the objects are ConfigMaps: kaptest evaluates them all the same
    manifest = _map_manifest(
        tmp_path,
        "  - object: {kind: ConfigMap, name: input}\n    expect: mutate\n    expectObject: {kind: ConfigMap, name: expected}\n"
        "  - object: {kind: ConfigMap, name: system-input}\n    expect: skip\n",
    )
    report = run([manifest])
    assert report.ok, _reasons(report)
    assert report.passed == 2


def test_kaptest_mutate_with_the_wrong_expect_object_shows_the_diff(tmp_path):
    manifest = _map_manifest(
        tmp_path,
        "  - object: {kind: ConfigMap, name: input}\n    expect: mutate\n    expectObject: {kind: ConfigMap, name: wrong}\n",
    )
    (result,) = run([manifest]).results
    assert not result.passed
    assert "-    team: b" in result.failures[0] and "+    team: a" in result.failures[0]


def test_a_failing_case_with_mocks_lists_the_authorization_checks_asked(tmp_path):
    source = KAT / "critical-workloads"
    (tmp_path / "policy.yaml").write_text((source / "policy.yaml").read_text())
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "critical-workloads.x.allow.object.yaml").write_text(
        (source / "tests" / "critical-workloads.permitted.allow.object.yaml").read_text()
    )
    (tests / "critical-workloads.x.allow.authorizer.yaml").write_text(
        "- {resource: criticalworkload, verb: create, decision: allow}\n"
    )
    (result,) = run(tmp_path).results
    assert not result.passed
    assert result.failures[-1] == (
        "authorization checks asked: verb='create' apiGroup='policy.example.com' resource='criticalworkloads' namespace='payments'"
    )


def test_a_case_keeps_the_response_fields_of_its_outcome_but_not_the_steps():
    report = run(
        [external_path("kaptest", "examples", "simple", "simple-policy.test", "kaptest.yaml")],
        run_regex="error-policy",
    )
    (result,) = report.results
    assert set(result.outcome) == {
        "result",
        "allowed",
        "statusCode",
        "reason",
        "message",
        "warnings",
        "auditAnnotations",
        "errors",
        "causes",
    }
    data = result.to_dict()
    assert data["result"] == "error" and "no such key: rrrrreplicas" in data["message"]


# One Deployment, evaluated with defaulting (the suite's default) and without it.
_DEFAULTING_OBJECT = """  object:
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: web, namespace: default}
    spec: {template: {spec: {containers: [{name: web, image: nginx}]}}}
"""
DEFAULTING_SUITE = (
    """apiVersion: policyeditor.dev/v1
kind: PolicyTest
policies: [policy.yaml]
kubernetesVersion: "1.34"
cases:
- name: sees-the-default
"""
    + _DEFAULTING_OBJECT
    + """  expect: {result: allow}
- name: as-pasted
  defaulting: false
"""
    + _DEFAULTING_OBJECT
    + """  expect: {result: deny}
"""
)

STRATEGY_POLICY = """apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: strategy}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}
  validations:
  - expression: "has(object.spec.strategy) && object.spec.strategy.type == 'RollingUpdate'"
"""


def test_suites_default_objects_unless_a_case_or_the_command_says_not_to(tmp_path):
    (tmp_path / "policy.yaml").write_text(STRATEGY_POLICY)
    (tmp_path / "d.policytest.yaml").write_text(DEFAULTING_SUITE)
    report = run([tmp_path])
    assert report.ok, _reasons(report)
    everything_off = run([tmp_path], defaulting=False)
    assert [r.passed for r in everything_off.results] == [False, True]
    assert "expected result allow, got deny" in _reasons(everything_off)
