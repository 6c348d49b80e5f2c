"""The `policyeditor` command through main([...]), `python -m policyeditor` and the console script."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from policyeditor import __version__
from policyeditor.cli import main
from tests.vectors import DATA, external_path

SUITES = DATA / "suites"
INVALID_POLICY = SUITES / "failing" / "invalid-policy" / "policy.yaml"
KAPTEST = ("kaptest", "internal", "tester", "testdata")
VALID_BINDING = SUITES / "passing" / "kat" / "replica-limit" / "binding.yaml"
VENV_BIN = Path(sys.executable).parent


def run(*argv: str) -> tuple[int, str, str]:
    """Exit status, stdout and stderr of one invocation."""
    out, err = io.StringIO(), io.StringIO()
    status = main(list(argv), stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


def test_version_prints_the_package_version(capsys):
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"policyeditor {__version__}"


def test_help_lists_the_four_subcommands(capsys):
    assert main(["--help"]) == 0
    text = capsys.readouterr().out
    for command in ("validate", "eval", "test", "cel"):
        assert command in text


def test_no_subcommand_is_a_usage_error(capsys):
    assert main([]) == 2
    assert "error:" in capsys.readouterr().err


def test_unknown_option_is_a_usage_error(capsys):
    assert main(["validate", "--colour", "x.yaml"]) == 2
    assert "unrecognized arguments: --colour" in capsys.readouterr().err


def test_validate_reports_api_server_errors_and_exits_1():
    status, out, _ = run("validate", str(INVALID_POLICY))
    assert status == 1
    assert (
        f"{INVALID_POLICY}:6:3: ValidatingAdmissionPolicy 'broken': spec.failurePolicy: "
        'Unsupported value: "Sometimes": supported values: "Fail", "Ignore"'
    ) in out


def test_validate_json_prints_file_kind_name_path_and_message():
    status, out, _ = run("validate", str(INVALID_POLICY), "-o", "json")
    assert status == 1
    records = json.loads(out)
    assert {
        "file": str(INVALID_POLICY),
        "kind": "ValidatingAdmissionPolicy",
        "name": "broken",
        "path": "spec.failurePolicy",
        "message": 'Unsupported value: "Sometimes": supported values: "Fail", "Ignore"',
    } in records
    assert all(set(r) == {"file", "kind", "name", "path", "message"} for r in records)


def test_validate_yaml_output_is_the_same_list():
    status, out, _ = run("validate", str(INVALID_POLICY), "-o", "yaml")
    assert status == 1
    assert yaml.safe_load(out)[0]["name"] == "broken"


def test_validate_a_valid_file_exits_0():
    status, out, _ = run("validate", str(VALID_BINDING), "--k8s-version", "1.31")
    assert status == 0
    assert out == "1 document valid for Kubernetes 1.31\n"
    status, out, _ = run("validate", str(VALID_BINDING), "-o", "json")
    assert (status, json.loads(out)) == (0, [])


def test_missing_file_is_one_line_on_stderr_and_exit_2(tmp_path):
    missing = tmp_path / "nope.yaml"
    status, out, err = run("validate", str(missing))
    assert status == 2
    assert out == ""
    assert err.count("\n") == 1
    assert "nope.yaml" in err and "Traceback" not in err


def test_bad_yaml_is_one_line_with_the_line_number_and_exit_2(tmp_path):
    broken = tmp_path / "broken.yaml"
    broken.write_text("kind: ValidatingAdmissionPolicy\nspec: [1, 2\n")
    status, _, err = run("validate", str(broken))
    assert status == 2
    assert err.startswith("policyeditor validate: error: ")
    assert "line" in err and err.count("\n") == 1


def test_unknown_kubernetes_version_is_an_input_error():
    status, _, err = run("validate", str(VALID_BINDING), "--k8s-version", "1.20")
    assert status == 2
    assert "Kubernetes 1.20 is not supported" in err


def test_test_on_a_missing_path_exits_2(tmp_path):
    status, _, err = run("test", str(tmp_path / "missing"))
    assert status == 2
    assert "no such file or directory" in err


def test_test_with_a_bad_run_regex_exits_2():
    status, _, err = run("test", str(SUITES / "failing"), "-run", "(")
    assert status == 2
    assert "-run: invalid regular expression '('" in err


def test_test_reports_malformed_kaptest_manifests_and_exits_1():
    manifest = external_path(*KAPTEST, "invalid-config.yaml")
    status, out, _ = run("test", str(manifest))
    assert status == 1
    assert 'invalid kaptest manifest: unknown field "case"' in out
    assert out.splitlines()[-1] == "0 passed, 1 failed"


def test_test_json_lists_errors_and_counts():
    manifest = external_path(*KAPTEST, "invalid-format.yaml")
    status, out, _ = run("test", str(manifest), "-o", "json")
    assert status == 1
    report = json.loads(out)
    assert report["failed"] == 1 and report["passed"] == 0
    assert "mapping values are not allowed" in report["errors"][0]["message"]


def test_test_on_a_directory_without_suites_fails(tmp_path):
    status, out, _ = run("test", str(tmp_path))
    assert status == 1
    assert "no test suites found" in out


def test_eval_without_an_object_is_an_input_error():
    status, _, err = run("eval", str(VALID_BINDING))
    assert status == 2
    assert "give --object, --old-object or both" in err


def test_eval_with_an_unknown_operation_is_a_usage_error():
    status, _, err = run(
        "eval", str(VALID_BINDING), "--object", str(VALID_BINDING), "--operation", "PATCH"
    )
    assert status == 2
    assert "invalid choice: 'PATCH'" in err


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(Path(__file__).resolve().parent.parent)
    return env


def test_python_dash_m_runs_the_same_command():
    completed = subprocess.run(
        [sys.executable, "-m", "policyeditor", "--version"],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=120,
    )
    assert completed.returncode == 0
    assert completed.stdout.strip() == f"policyeditor {__version__}"


def test_the_installed_console_script_runs_the_external_kaptest_manifest():
    script = VENV_BIN / "policyeditor"
    if not script.exists():
        pytest.fail(f"console script not installed at {script}: run `pip install -e .`")
    manifest = external_path(*KAPTEST, "invalid-policy-file-not-found.yaml")
    completed = subprocess.run(
        [str(script), "test", str(manifest)],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=300,
    )
    assert completed.returncode == 1
    assert "not-exist.yaml: file not found" in completed.stdout
    assert completed.stdout.splitlines()[-1] == "0 passed, 1 failed"
    assert "Traceback" not in completed.stderr


DEPLOYMENT_3 = SUITES / "passing" / "policytest" / "objects" / "deployment-3.yaml"


def test_cel_prints_the_value_as_json():
    status, out, _ = run("cel", "object.spec.replicas * 2", "--object", str(DEPLOYMENT_3))
    assert (status, out) == (0, "6\n")


def test_cel_sees_the_request_built_from_the_object():
    status, out, _ = run(
        "cel", "request.operation + ' ' + request.resource.resource", "--object", str(DEPLOYMENT_3)
    )
    assert (status, out) == (0, '"CREATE deployments"\n')


def test_cel_compile_error_prints_the_caret_and_exits_1():
    status, out, err = run("cel", "x + 1")
    assert status == 1 and out == ""
    assert "ERROR: <input>:1:1: undeclared reference to 'x'" in err
    assert " | x + 1\n | ^" in err


def test_cel_runtime_error_exits_1_with_the_cel_message():
    status, _, err = run("cel", "object.spec.nope", "--object", str(DEPLOYMENT_3))
    assert status == 1
    assert "no such key: nope" in err


def test_cel_json_output_has_value_cost_errors_and_warnings():
    status, out, _ = run("cel", "[1, 2].size()", "-o", "json")
    data = json.loads(out)
    assert status == 0
    assert data["value"] == 2 and data["errors"] == [] and isinstance(data["cost"], int)


POLICYTEST = SUITES / "passing" / "policytest"
CONFIGMAP_DEFAULTS = SUITES / "passing" / "kat" / "configmap-defaults"
# `eval` of the replica-limit policy, and of the configmap-defaults MAP on its plain ConfigMap.
EVAL_REPLICA_LIMIT = ("eval", str(POLICYTEST / "replica-limit.yaml"))
EVAL_CONFIGMAP_DEFAULTS = (
    "eval",
    str(CONFIGMAP_DEFAULTS / "policy.yaml"),
    "--object",
    str(CONFIGMAP_DEFAULTS / "tests" / "configmap-defaults.plain.object.yaml"),
)


def deployment_file(replicas: int) -> str:
    """The policytest suite's Deployment object with `replicas`."""
    return str(POLICYTEST / "objects" / f"deployment-{replicas}.yaml")


def test_eval_denies_through_the_binding_and_exits_1():
    status, out, _ = run(
        *EVAL_REPLICA_LIMIT, str(POLICYTEST / "params.yaml"), "--object", deployment_file(6)
    )
    assert status == 1
    lines = out.splitlines()
    assert lines[0] == "result: deny (allowed: false, code 422)"
    assert lines[1] == (
        "message: deployments.apps \"web\" is forbidden: ValidatingAdmissionPolicy 'replica-limit' "
        "with binding 'replica-limit-prod' denied request: replicas must not exceed 5"
    )
    assert "audit annotation: replica-limit/replicas: 6" in lines
    assert (
        "  validation[0]: fail  object.spec.replicas <= int(params.data.maxReplicas)  -- replicas must not exceed 5"
        in lines
    )


def test_eval_within_the_limit_is_allowed_and_exits_0():
    status, out, _ = run(
        *EVAL_REPLICA_LIMIT,
        str(POLICYTEST / "params.yaml"),
        "--object",
        deployment_file(4),
        "--old-object",
        deployment_file(3),
        "-o",
        "json",
    )
    data = json.loads(out)
    assert status == 0
    assert (data["result"], data["allowed"]) == ("allow", True)
    assert {p["binding"] for p in data["policies"]} == {
        "replica-limit-prod",
        "replica-limit-staging",
    }


def test_eval_inline_params_user_and_groups_reach_the_request(tmp_path):
    params = tmp_path / "params.yaml"
    params.write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: p, namespace: default}\ndata: {maxReplicas: '2'}\n"
    )
    status, out, _ = run(
        *EVAL_REPLICA_LIMIT,
        "--object",
        deployment_file(3),
        "--params",
        str(params),
        "--policy",
        "replica-limit",
        "--binding",
        "replica-limit-prod",
        "--user",
        "alice",
        "--group",
        "dev",
        "-o",
        "yaml",
    )
    data = yaml.safe_load(out)
    assert status == 1
    assert "replicas must not exceed 2" in data["message"]


def test_eval_yaml_output_carries_the_mutated_object():
    status, out, _ = run(*EVAL_CONFIGMAP_DEFAULTS, "-o", "yaml")
    data = yaml.safe_load(out)
    assert status == 0
    expected = yaml.safe_load(
        (CONFIGMAP_DEFAULTS / "tests" / "configmap-defaults.plain.gold.yaml").read_text()
    )
    assert data["object"] == expected


def test_eval_text_shows_the_mutation_diff():
    status, out, _ = run(*EVAL_CONFIGMAP_DEFAULTS)
    assert status == 0
    assert "object diff:" in out
    assert "  +  log-level: info" in out.splitlines()


def test_eval_refuses_invalid_policies_with_the_api_server_errors():
    status, out, err = run("eval", str(INVALID_POLICY), "--object", str(VALID_BINDING))
    assert status == 1 and out == ""
    assert 'spec.failurePolicy: Unsupported value: "Sometimes"' in err


def test_test_runs_every_passing_suite_and_the_external_kaptest_tree():
    status, out, _ = run("test", str(SUITES / "passing"), str(external_path("kaptest")))
    assert status == 0
    lines = out.splitlines()
    assert lines[-1] == "62 passed, 0 failed"
    # Two kat cases expect "allowed" where no policy took part: passing, with a warning each.
    assert lines[-2] == "warning: 2 cases passed vacuously (--strict fails them)"
    warnings = [line for line in lines[:-2] if not line.startswith("PASS  ")]
    assert warnings == [
        "      warning: passed vacuously: allowed: no policy matched the request",
        "      warning: passed vacuously: allowed: MutatingAdmissionPolicy 'configmap-defaults' "
        "was not evaluated: matchCondition 'not-opted-out' is false",
    ]


def test_test_with_worker_processes_prints_what_one_process_prints():
    paths = (str(SUITES / "passing"), str(SUITES / "failing"), str(external_path("kaptest")))
    alone = run("test", *paths, "-j", "1")
    assert alone[0] == 1 and alone[1].splitlines()[-1].endswith("failed")
    assert run("test", *paths, "-j", "2") == alone
    assert run("test", *paths, "--jobs", "auto") == alone


@pytest.mark.parametrize("jobs", ["0", "-1", "two"])
def test_test_refuses_a_jobs_value_that_is_not_a_count(jobs):
    status, out, err = run("test", str(SUITES / "passing"), "-j", jobs)
    assert status == 2 and out == ""
    assert "argument -j/--jobs: expected" in err


def test_test_run_filter_and_json_output():
    status, out, _ = run("test", str(SUITES / "passing"), "-run", r"pod-exec\.", "-o", "json")
    report = json.loads(out)
    assert status == 0
    assert sorted(c["name"] for c in report["cases"]) == [
        "pod-exec.dev-execs-into-app.deny",
        "pod-exec.sre-execs-into-app.allow",
    ]
    assert {c["result"] for c in report["cases"]} == {"allow", "deny"}


def test_test_failures_print_reasons_and_exit_1():
    status, out, _ = run("test", str(SUITES / "failing"), "--run", "wrong-message")
    assert status == 1
    assert (
        "FAIL  " + str(SUITES / "failing" / "kat-mismatches").replace(str(Path.cwd()) + os.sep, "")
        in out
    )
    assert "      expected the message 'replicas must be at most 6'" in out


def test_the_installed_console_script_passes_the_external_kaptest_tree():
    script = VENV_BIN / "policyeditor"
    if not script.exists():
        pytest.fail(f"console script not installed at {script}: run `pip install -e .`")
    completed = subprocess.run(
        [str(script), "test", str(external_path("kaptest"))],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=600,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert completed.stdout.splitlines()[-1] == "27 passed, 0 failed"


def test_eval_namespace_object_operation_and_groups(tmp_path):
    configmap = tmp_path / "cm.yaml"
    configmap.write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: shop}\n"
    )
    namespace = tmp_path / "ns.yaml"
    namespace.write_text(
        "apiVersion: v1\nkind: Namespace\nmetadata: {name: shop, labels: {frozen: 'true'}}\n"
    )
    policy = str(POLICYTEST / "env-guard.yaml")
    status, out, _ = run(
        "eval",
        policy,
        "--object",
        str(configmap),
        "--namespace-object",
        str(namespace),
        "-o",
        "json",
    )
    assert (status, json.loads(out)["result"]) == (1, "deny")
    status, out, _ = run(
        "eval",
        policy,
        "--old-object",
        str(configmap),
        "--operation",
        "delete",
        "--group",
        "admins",
        "-o",
        "json",
    )
    assert (status, json.loads(out)["result"]) == (0, "allow")
    status, out, _ = run(
        "eval", policy, "--old-object", str(configmap), "--user", "bob", "-o", "json"
    )
    assert status == 1
    assert "deleting configuration needs approval" in json.loads(out)["message"]


def test_eval_authorizer_mocks_from_a_file(tmp_path):
    configmap = tmp_path / "cm.yaml"
    configmap.write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: shop}\n"
    )
    mocks = tmp_path / "mocks.yaml"
    mocks.write_text("- {path: /approve-deletes, verb: post, decision: allow}\n")
    policy = str(POLICYTEST / "env-guard.yaml")
    status, out, _ = run(
        "eval", policy, "--old-object", str(configmap), "--authorizer", str(mocks), "-o", "json"
    )
    assert (status, json.loads(out)["result"]) == (0, "allow")
    mocks.write_text("- {path: /approve-deletes, decision: perhaps}\n")
    status, _, err = run("eval", policy, "--old-object", str(configmap), "--authorizer", str(mocks))
    assert status == 2
    assert "authorizer[0].decision: Unsupported value: 'perhaps'" in err


def _strategy_policy(tmp_path: Path) -> tuple[Path, Path]:
    policy = tmp_path / "policy.yaml"
    policy.write_text(
        "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\n"
        "metadata: {name: strategy}\nspec:\n  matchConstraints:\n    resourceRules:\n"
        "    - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}\n"
        "  validations:\n  - expression: \"object.spec.strategy.type == 'RollingUpdate'\"\n"
    )
    deployment = tmp_path / "deployment.yaml"
    deployment.write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\n"
        "spec: {template: {spec: {containers: [{name: web, image: nginx}]}}}\n"
    )
    return policy, deployment


def test_eval_defaults_the_object_and_lists_the_defaulted_fields(tmp_path):
    policy, deployment = _strategy_policy(tmp_path)
    status, out, _ = run("eval", str(policy), "--object", str(deployment))
    assert status == 0, out
    defaulted = [line for line in out.splitlines() if line.startswith("defaulted (object): ")]
    assert len(defaulted) == 1
    assert "spec.strategy.type" in defaulted[0].split(": ", 1)[1].split(", ")
    status, out, _ = run("eval", str(policy), "--object", str(deployment), "-o", "json")
    data = json.loads(out)
    assert data["defaulting"] is True
    assert "spec.template.spec.containers[0].imagePullPolicy" in data["defaulted"]["object"]


def test_eval_no_defaulting_evaluates_the_object_as_given(tmp_path):
    policy, deployment = _strategy_policy(tmp_path)
    status, out, _ = run("eval", str(policy), "--object", str(deployment), "--no-defaulting")
    assert status == 1
    assert "no such key: strategy" in out
    assert "defaulted (" not in out


def test_test_coverage_prints_each_policy_binding_and_what_no_case_evaluated():
    status, out, _ = run(
        "test", str(SUITES / "passing" / "kat" / "configmap-defaults"), "--coverage"
    )
    assert status == 0
    block = out.split("coverage:\n", 1)[1].splitlines()
    assert block == [
        "  MutatingAdmissionPolicy 'configmap-defaults': 3/3 expressions evaluated (100%)",
        "    not matched (matchConstraints): 1",
        "    evaluated alone (no binding): 4 evaluated, 0 not matched",
        "      matchConditions[0] not-opted-out: true 3, false 1",
        '      mutations[0] Object{ metadata: Object.metadata{labels: {"managed-by": "policyedi...:'
        " applied 3",
        '      mutations[1] [JSONPatch{op: "add", path: "/metadata/annotations", value: {"polic...:'
        " applied 3",
        "warning: 2 cases passed vacuously (--strict fails them)",
        "5 passed, 0 failed",
    ]


def test_test_coverage_json_has_the_report_beside_the_cases():
    status, out, _ = run(
        "test", str(external_path("kaptest")), "--coverage", "-o", "json", "-run", "simple"
    )
    report = json.loads(out)
    assert status == 0 and report["failed"] == 0
    (policy,) = [p for p in report["coverage"]["policies"] if p["policy"] == "simple-policy"]
    assert policy == {
        "kind": "ValidatingAdmissionPolicy",
        "policy": "simple-policy",
        "evaluated": 1,
        "total": 1,
        "percent": 100.0,
        "suite": policy["suite"],
        "notMatched": 0,
        "items": [
            {
                "id": "validations[0]",
                "label": "object.spec.replicas <= 5",
                "outcomes": {"true": 1, "false": 1},
            }
        ],
        "bindings": [
            {
                "binding": None,
                "evaluations": 2,
                "notMatched": 0,
                "noExpression": 0,
                "items": [{"id": "validations[0]", "outcomes": {"true": 1, "false": 1}}],
            }
        ],
        "notExercised": [],
    }
    assert policy["suite"].endswith("simple-policy.test/kaptest.yaml")


def test_test_strict_fails_vacuous_passes_and_exits_1():
    path = str(SUITES / "passing" / "kat" / "configmap-defaults")
    assert run("test", path)[0] == 0
    status, out, _ = run("test", path, "--strict")
    assert status == 1
    assert out.splitlines()[-1] == "3 passed, 2 failed"
    assert (
        "      passed vacuously (allowed: no policy matched the request); --strict fails such a case"
        in out.splitlines()
    )
    status, out, _ = run("test", path, "--strict", "-o", "json")
    report = json.loads(out)
    assert status == 1 and report["failed"] == 2 and report["vacuous"] == 0
    failed = {c["name"]: c["vacuous"] for c in report["cases"] if not c["passed"]}
    assert failed["configmap-defaults.delete-is-never-mutated"] == (
        "allowed: no policy matched the request"
    )


def test_test_coverage_with_worker_processes_prints_what_one_process_prints():
    paths = (str(SUITES / "passing"), str(external_path("kaptest")), "--coverage")
    alone = run("test", *paths, "-j", "1")
    assert alone[0] == 0 and "coverage:" in alone[1]
    assert run("test", *paths, "-j", "2") == alone


def test_output_into_a_closed_pipe_ends_quietly_with_the_status_of_sigpipe():
    # `policyeditor ... | head`: head leaves once it has its lines.
    process = subprocess.Popen(
        [sys.executable, "-m", "policyeditor", "validate", str(INVALID_POLICY)] + ["-o", "json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        # Buffered, as a shell runs it: the output is written when the command flushes it.
        env={key: value for key, value in _env().items() if key != "PYTHONUNBUFFERED"},
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # gone before the command writes anything
    stderr = process.stderr.read().decode()
    assert process.wait(timeout=120) == 141
    assert stderr == ""
