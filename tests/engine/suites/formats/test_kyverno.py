"""Kyverno CLI suites: Kyverno's own VAP/MAP test suites run unchanged, graded as the API server
would answer, with a note wherever Kyverno's CLI would report something else."""

from __future__ import annotations

import textwrap
from pathlib import Path

from policyeditor.engine.manifests.dump import dump_documents
from policyeditor.engine.suites import discover, run
from policyeditor.engine.suites.formats.kyverno import load_kyverno, looks_like_kyverno_test
from policyeditor.engine.suites.model import SuiteError
from tests.builders import document, rules, vap, vap_binding
from tests.engine.suites.exports.test_exports import DOCUMENTS

DATA = Path(__file__).resolve().parents[3] / "data" / "kyverno"

NO_BINDING = "no binding of"
NOT_VALID = "Kyverno's CLI does not put admission policies"
PER_PARAM = "binding binding's paramRef selects 2"

# (suite directory, case name) -> (passed, graded result or None when not evaluated, note starts)
REFERENCE = {
    ("disallow-host-path", "disallow-host-path: Deployment deployment-fail (fail)"): (True, "deny", [NO_BINDING]),
    ("disallow-host-path", "disallow-host-path: Deployment deployment-pass (pass)"): (True, "allow", [NO_BINDING]),
    ("Check-replica", "sample-policy: Deployment sample-deploy (pass)"): (True, "allow", [NO_BINDING]),
    ("check-labels", "add-default-app-label: Pod pass-pod (pass)"): (False, None, [NO_BINDING, NOT_VALID]),
    ("check-labels", "add-default-app-label: Pod skip-pod (skip)"): (False, None, [NO_BINDING, NOT_VALID]),
    ("check-ns-add-label", "add-label-in-dev: Deployment dev/dev-deploy (pass)"): (False, None, [NO_BINDING, NOT_VALID]),
    ("check-ns-add-label", "add-label-in-dev: Deployment prod/prod-deploy (skip)"): (False, None, [NO_BINDING, NOT_VALID]),
    ("match-condition", "set-replicas-color-red: Deployment nginx-red (pass)"): (False, None, [NO_BINDING, NOT_VALID]),
    ("match-condition", "set-replicas-color-red: Deployment nginx-no-color (skip)"): (False, None, [NO_BINDING, NOT_VALID]),
    ("mutate-namespace", "add-label-to-namespace: Namespace test-namespace (pass)"): (True, "allow", [NO_BINDING]),
    ("specify-object-selector", "add-label-to-configmap: ConfigMap matched-cm (pass)"): (True, "allow", [NO_BINDING]),
    ("specify-resource-name", "add-label-to-configmap: ConfigMap game-demo (pass)"): (True, "allow", [NO_BINDING]),
    ("test-mutating-admission-policy-binding", "set-replicas: Deployment test-ns/nginx-test (pass)"): (False, None, [NOT_VALID]),
    ("with-apply-configuration", "add-security-context-to-pods: Pod example-pod (pass)"): (True, "allow", [NO_BINDING]),
    ("with-match-conditions", "add-label-to-configmap: ConfigMap matched-cm (pass)"): (True, "allow", [NO_BINDING]),
    ("with-match-conditions", "add-label-to-configmap: ConfigMap unmatched-cm (skip)"): (True, "skip", [NO_BINDING]),
    ("with-params", "change-deployment-replicas: Deployment test-deployment (pass)"): (True, "allow", []),
    ("with-two-params", "change-deployment-replicas-labels: Deployment test-deployment (pass)"): (False, "error", [PER_PARAM]),
    ("check-user-info", "check-user-info: Deployment nginx-deployment (pass)"): (True, "allow", [NO_BINDING]),
    ("with-bindings-1", "check-deployment-replicas: Deployment nginx-deployment-1 (fail)"): (True, "deny", []),
    ("with-bindings-1", "check-deployment-replicas: Deployment nginx-deployment-2 (pass)"): (True, "allow", []),
    ("with-bindings-1", "check-deployment-replicas: Deployment busybox-deployment (skip)"): (True, "skip", []),
    ("with-bindings-2", "check-deployment-replicas: Deployment nginx-deployment (fail)"): (True, "deny", []),
    ("with-bindings-2", "check-deployment-replicas: Deployment busybox-deployment (skip)"): (True, "skip", []),
    ("with-bindings-3", "check-deployment-replicas: Deployment staging/staging-deployment-1 (fail)"): (True, "deny", []),
    ("with-bindings-3", "check-deployment-replicas: Deployment production/production-deployment-1 (fail)"): (True, "deny", []),
    ("with-bindings-3", "check-deployment-replicas: Deployment staging/staging-deployment-2 (pass)"): (True, "allow", []),
    ("with-bindings-3", "check-deployment-replicas: Deployment production/production-deployment-2 (pass)"): (True, "allow", []),
    ("with-bindings-3", "check-deployment-replicas: Deployment testing/testing-deployment-1 (skip)"): (True, "skip", []),
    ("with-bindings-3", "check-deployment-replicas: Deployment testing/testing-deployment-2 (skip)"): (True, "skip", []),
    ("with-bindings-4", "check-deployment-replicas: Deployment busybox-deployment-1 (fail)"): (True, "deny", []),
    ("with-bindings-4", "check-deployment-replicas: Deployment busybox-deployment-2 (pass)"): (True, "allow", []),
    ("with-bindings-4", "check-deployment-replicas: Deployment nginx-deployment (skip)"): (True, "skip", []),
    ("with-match-conditions", "disallow-host-path: Pod bad-pod (fail)"): (True, "deny", [NO_BINDING]),
    ("with-match-conditions", "disallow-host-path: Pod good-pod (pass)"): (True, "allow", [NO_BINDING]),
    ("with-match-conditions", "disallow-host-path: Pod skipped-pod (skip)"): (True, "skip", [NO_BINDING]),
    ("with-namespaceObject-1", "check-deployment-namespace: Deployment default/bad-deployment (fail)"): (True, "deny", [NO_BINDING]),
    ("with-namespaceObject-1", "check-deployment-namespace: Deployment staging/good-deployment (pass)"): (True, "allow", [NO_BINDING]),
    ("with-params", "check-deployments-replicas: Deployment nginx-deployment1 (pass)"): (False, None, [NOT_VALID]),
    ("with-params", "check-deployments-replicas: Deployment nginx-deployment2 (fail)"): (False, None, [NOT_VALID]),
}  # fmt: skip


def test_every_reference_suite_of_kyverno_runs_with_its_outcome_per_case():
    report = run([DATA])
    outcomes = {}
    for result in report.results:
        key = (Path(result.case.suite).parent.name, result.case.name)
        assert key not in outcomes
        notes = [
            note[: len(want)]
            for note, want in zip(result.notes, REFERENCE.get(key, (0, 0, []))[2], strict=False)
        ]
        graded = (result.outcome or {}).get("result")
        outcomes[key] = (
            result.passed,
            graded,
            notes if len(notes) == len(result.notes) else result.notes,
        )
    assert outcomes == REFERENCE
    assert report.summary() == "30 passed, 12 failed"


def test_malformed_reference_suites_fail_as_kyverno_strict_decoding_does():
    report = run([DATA])
    assert sorted((Path(e.source).parent.name, e.message) for e in report.errors) == [
        ("check-user-info", 'invalid Kyverno test: json: unknown field "userInfo"'),
        ("match-namespaces", 'invalid Kyverno test: json: unknown field "spec"'),
    ]


def test_a_policy_refused_by_the_api_server_fails_with_its_message():
    report = run([DATA / "test-validating-admission-policy" / "with-params"])
    failures = report.results[0].failures
    assert failures == [
        "the policies are not valid:",
        "ValidatingAdmissionPolicyBinding 'check-deployments-replicas-binding': "
        "spec.paramRef.parameterNotFoundAction: Required value",
        "ValidatingAdmissionPolicyBinding 'check-deployments-replicas-binding': "
        "spec.validationActions: Required value: at least one validation action is required",
    ]


def test_values_namespace_labels_and_the_kubectl_default_namespace_become_namespaces():
    cases = load_kyverno(
        DATA / "test-validating-admission-policy" / "with-bindings-3" / "kyverno-test.yaml"
    )
    namespaces = {
        r["metadata"]["name"]: r["metadata"]["labels"]
        for r in cases[0].resources
        if r["kind"] == "Namespace"
    }
    assert namespaces["staging"] == {
        "environment": "staging",
        "kubernetes.io/metadata.name": "staging",
    }
    assert set(namespaces) == {"staging", "production", "testing"}
    assert all(c.operation == "CREATE" and c.old_object is None for c in cases)


def test_the_user_info_file_gives_the_request_user():
    cases = load_kyverno(
        DATA / "test-validating-admission-policy" / "check-user-info" / "kyverno-test.yaml"
    )
    assert cases[0].user_info == {
        "username": "example-system-masters",
        "groups": ["system:masters", "system:authenticated"],
    }


def test_a_result_without_resources_is_paired_by_its_patched_resource():
    cases = load_kyverno(
        DATA / "test-mutating-admission-policy" / "Check-replica" / "kyverno-test.yaml"
    )
    assert [c.object["metadata"]["name"] for c in cases] == ["sample-deploy"]
    assert cases[0].expect.object["spec"]["replicas"] == 12


def _write(directory: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (directory / name).write_text(textwrap.dedent(text))
    return directory / "kyverno-test.yaml"


DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: apps
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: nginx}]}
"""


def _test_file(result: str, *, resources: str = "[web]", extra: str = "") -> str:
    return f"""\
apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata:
  name: t
policies: [policy.yaml]
resources: [deployment.yaml]
variables: values.yaml
results:
- policy: replicas
  isValidatingAdmissionPolicy: true
  kind: Deployment
  resources: {resources}
  result: {result}
{extra}"""


VALUES = """\
apiVersion: cli.kyverno.io/v1alpha1
kind: Values
namespaceSelector:
- name: apps
  labels: {team: a}
"""


def _replicas_suite(
    directory: Path,
    test_file: str,
    *bindings: tuple[str, str, str],
    failure: str = "Fail",
    expression: str = "object.spec.replicas <= 2",
    resource: str = DEPLOYMENT,
) -> Path:
    """A suite in `directory`: the replicas policy, bindings (name, action, team), `resource`."""
    check = {"expression": expression, "message": "at most 2 replicas"}
    policy = vap(
        "replicas",
        failurePolicy=failure,
        matchConstraints=rules(operations=("CREATE",)),
        validations=[check],
    )
    by_team = [
        vap_binding(
            name,
            "replicas",
            (action,),
            matchResources={"namespaceSelector": {"matchLabels": {"team": team}}},
        )
        for name, action, team in bindings
    ]
    text = dump_documents([policy, *by_team])
    files = {"policy.yaml": text, "deployment.yaml": resource, "values.yaml": VALUES}
    return _write(directory, {**files, "kyverno-test.yaml": test_file})


def test_two_matching_bindings_are_both_evaluated_and_noted(tmp_path):
    path = _replicas_suite(
        tmp_path, _test_file("fail"), ("audit-a", "Audit", "a"), ("deny-a", "Deny", "a")
    )
    [result] = run([path]).results
    assert result.passed
    assert result.outcome["result"] == "deny"
    assert result.notes[0].startswith("bindings audit-a, deny-a matched: kube-apiserver evaluates")
    assert result.notes[1].startswith("binding audit-a has validationActions ['Audit']")


def test_a_warn_only_binding_still_reports_fail_and_says_the_request_is_admitted(tmp_path):
    path = _replicas_suite(tmp_path, _test_file("fail"), ("warn-a", "Warn", "a"))
    report = run([path])
    [result] = report.results
    assert result.passed and result.outcome["allowed"] is True
    assert result.notes == [
        "binding warn-a has validationActions ['Warn']: kube-apiserver admits the request and only "
        "warns about the failure; Kyverno's CLI ignores validationActions and reports fail as for Deny"
    ]
    assert "      note: binding warn-a has validationActions" in report.to_text()
    assert report.to_dict()["cases"][0]["notes"] == result.notes


def test_namespace_labels_from_the_values_file_decide_the_binding(tmp_path):
    path = _replicas_suite(tmp_path, _test_file("fail"), ("deny-b", "Deny", "b"))
    [result] = run([path]).results
    assert not result.passed
    assert result.failures[0].startswith("expected result fail, got skip")


def test_an_error_under_failure_policy_ignore_is_noted(tmp_path):
    path = _replicas_suite(
        tmp_path,
        _test_file("error", resources="[apps/web]"),
        ("deny-a", "Deny", "a"),
        failure="Ignore",
        expression="object.spec.nothing <= 2",
    )
    [result] = run([path]).results
    assert result.passed, result.failures
    assert result.notes == [
        "failurePolicy Ignore: kube-apiserver admits the request despite the error; "
        "Kyverno's CLI reports error"
    ]


def test_unknown_result_fields_and_results_values_are_case_errors(tmp_path):
    path = _replicas_suite(
        tmp_path,
        _test_file("fail", extra="  rules: [x]\n")
        + "- policy: replicas\n  kind: Deployment\n  resources: [web]\n  result: ok\n",
        expression="true",
    )
    cases = load_kyverno(path)
    assert [c.error for c in cases] == [
        'results[0]: json: unknown field "rules"',
        "results[1].result: Unsupported value: 'ok': supported values: "
        '"pass", "fail", "warn", "error", "skip"',
    ]


# The exports' label MAP (every new ConfigMap gets team=a) with a binding that has no matchResources.
MAP_POLICY = dump_documents(
    [
        DOCUMENTS[2],
        document(
            "MutatingAdmissionPolicyBinding",
            "everywhere",
            {"policyName": "label"},
            api_version="admissionregistration.k8s.io/v1beta1",
        ),
    ]
)


def test_a_mutation_without_effect_and_a_binding_without_match_resources_are_noted(tmp_path):
    path = _write(
        tmp_path,
        {
            "policy.yaml": MAP_POLICY,
            "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  labels: {team: a}\n",
            "kyverno-test.yaml": """\
                apiVersion: kyverno.io/v1
                kind: Test
                metadata: {name: t}
                policies: [policy.yaml]
                resources: [cm.yaml]
                results:
                - policy: label
                  isMutatingAdmissionPolicy: true
                  kind: ConfigMap
                  resources: [cm]
                  patchedResources: cm.yaml
                  result: pass
                """,
        },
    )
    [result] = run([path]).results
    assert result.passed, result.failures
    assert [note.split(":")[0] for note in result.notes] == [
        "binding everywhere has no matchResources",
        "the mutations left the object unchanged",
    ]


def test_directories_are_searched_for_kyverno_test_files(tmp_path):
    suite = tmp_path / "nested" / "suite"
    suite.mkdir(parents=True)
    _replicas_suite(suite, _test_file("pass"), expression="true")
    cases, errors = discover([tmp_path])
    assert errors == []
    assert [c.name for c in cases] == ["replicas: Deployment apps/web (pass)"]


def test_kyverno_tests_are_known_by_group_and_kind_or_their_legacy_results():
    assert looks_like_kyverno_test({"apiVersion": "cli.kyverno.io/v1alpha1", "kind": "Test"})
    assert looks_like_kyverno_test({"apiVersion": "kyverno.io/v1", "kind": "Test"})
    assert looks_like_kyverno_test({"results": [{"policy": "p", "result": "pass"}]})
    assert not looks_like_kyverno_test(
        {"apiVersion": "chainsaw.kyverno.io/v1alpha1", "kind": "Test"}
    )
    assert not looks_like_kyverno_test({"policies": ["p.yaml"], "testSuites": []})


def test_a_test_file_with_two_documents_is_refused(tmp_path):
    path = tmp_path / "kyverno-test.yaml"
    path.write_text("apiVersion: cli.kyverno.io/v1alpha1\nkind: Test\n---\nkind: Test\n")
    try:
        load_kyverno(path)
    except SuiteError as error:
        assert error.message == "invalid Kyverno test: expected one YAML document, found 2"
    else:
        raise AssertionError("expected a SuiteError")


def test_a_request_outside_the_policy_constraints_is_skipped_with_a_note_on_kyverno(tmp_path):
    pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: apps}\nspec: {containers: []}\n"
    path = _replicas_suite(
        tmp_path,
        _test_file("skip").replace("kind: Deployment", "kind: Pod"),
        ("deny-a", "Deny", "a"),
        resource=pod,
    )
    [result] = run([path]).results
    assert result.passed, result.failures
    assert result.notes == [
        "the policy's matchConstraints do not match the request (API group '' not in [apps]), so "
        "kube-apiserver skips it; Kyverno's CLI does not check them when the policy has bindings "
        "and evaluates it through any binding whose matchResources match"
    ]


def test_notes_come_back_from_worker_processes():
    one = run([DATA], jobs=1)
    two = run([DATA], jobs=2)
    assert [r.notes for r in two.results] == [r.notes for r in one.results]
    assert any(r.notes for r in two.results)
