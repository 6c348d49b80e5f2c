"""`policyeditor impact`: counts, changes against a baseline, exit status, JSON report."""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import os
import shlex
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import yaml

from policyeditor.cli import main
from tests.builders import bound, replica_limit
from tests.crd_cases import widget, widget_crd
from tests.engine.impact.helpers import deployment, kubectl_json

ROOT = Path(__file__).resolve().parent.parent


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def files(tmp_path, objects):
    (tmp_path / "new.yaml").write_text(yaml.safe_dump_all(bound(replica_limit(3))))
    (tmp_path / "old.yaml").write_text(yaml.safe_dump_all(bound(replica_limit(5))))
    (tmp_path / "dump.json.gz").write_bytes(gzip.compress(kubectl_json(objects)))
    return str(tmp_path / "new.yaml"), str(tmp_path / "old.yaml"), str(tmp_path / "dump.json.gz")


def test_the_json_report_counts_every_object_and_lists_the_changed_ones(tmp_path):
    new, old, dump = files(tmp_path, [deployment(f"d{i}", i) for i in range(7)])
    code, out, _ = run("impact", new, "--dump", dump, "-j", "1", "-o", "json", "--baseline", old)
    report = json.loads(out)
    assert code == 1  # d4 and d5 were allowed by the baseline and are denied now
    assert report["objects"] == 7
    assert report["counts"]["CREATE"]["deny"] == 3
    assert [row["name"] for row in report["listed"]] == ["d4", "d5"]
    assert report["newDenials"] == 2
    assert report["namespacesMissing"] == ["default"]


def test_new_denials_can_be_let_through_and_an_unchanged_revision_exits_zero(tmp_path):
    new, old, dump = files(tmp_path, [deployment(f"d{i}", i) for i in range(7)])
    code, out, _ = run("impact", new, "--dump", dump, "--no-fail-on-new-denials", "--baseline", old)
    assert code == 0
    assert "Deployment default/d4: CREATE allow -> deny, UPDATE allow -> deny" in out
    assert "warning: 1 namespaces used by objects are not in the input (default)" in out
    code, _, _ = run("impact", old, "--dump", dump, "-j", "2", "--baseline", old)
    assert code == 0


def test_without_a_baseline_every_denial_is_new(tmp_path):
    new, _, dump = files(tmp_path, [deployment("small", 1), deployment("big", 9)])
    code, out, _ = run("impact", new, "--dump", dump, "-j", "1")
    assert code == 1
    assert "Deployment default/big: CREATE allow -> deny" in out


def test_an_unreadable_dump_is_one_line_and_exit_two(tmp_path):
    new, _, _ = files(tmp_path, [])
    (tmp_path / "bad.yaml").write_text("a: &x [1]\nb: *x\n")
    code, _, err = run("impact", new, "--dump", str(tmp_path / "bad.yaml"))
    assert code == 2
    assert err.startswith("policyeditor impact: error: YAML aliases (*name) are not allowed")
    code, _, err = run("impact", new, "--dump", str(tmp_path / "missing.yaml"))
    assert code == 2 and "No such file or directory" in err


def labelled_only(tmp_path, failure_policy):
    """A policy file whose expression fails on objects without labels (no such key)."""
    policy = replica_limit(5, failurePolicy=failure_policy)
    policy["spec"]["validations"][0]["expression"] = "object.metadata.labels['tier'] == 'web'"
    path = tmp_path / f"labels-{failure_policy}.yaml"
    path.write_text(yaml.safe_dump_all(bound(policy)))
    return str(path)


def test_an_evaluation_error_under_failure_policy_fail_is_a_new_denial(tmp_path):
    _, old, dump = files(tmp_path, [deployment("d", 1)])
    failing = labelled_only(tmp_path, "Fail")
    code, out, _ = run("impact", failing, "--dump", dump, "-j", "1", "-o", "json")
    report = json.loads(out)
    assert code == 1
    assert report["counts"]["CREATE"]["error"] == 1
    assert report["newDenials"] == report["counts"]["deniedNewly"] == 1
    assert report["listed"][0]["CREATE"]["allowed"] is False
    code, out, _ = run("impact", failing, "--dump", dump, "-j", "1", "--baseline", old)
    assert code == 1
    assert "Deployment default/d: CREATE allow -> error (rejected)" in out


def test_an_evaluation_error_under_failure_policy_ignore_is_reported_but_not_a_denial(tmp_path):
    _, _, dump = files(tmp_path, [deployment("d", 1)])
    code, out, _ = run(
        "impact", labelled_only(tmp_path, "Ignore"), "--dump", dump, "-j", "1", "-o", "json"
    )
    report = json.loads(out)
    assert code == 0
    assert report["newDenials"] == report["counts"]["deniedNewly"] == 0
    assert report["changed"] == 1  # the error is still something the policy does


def test_an_error_that_goes_from_admitted_to_rejected_says_so_in_the_text_report(tmp_path):
    _, _, dump = files(tmp_path, [deployment("d", 1)])
    ignoring, failing = labelled_only(tmp_path, "Ignore"), labelled_only(tmp_path, "Fail")
    code, out, _ = run("impact", failing, "--dump", dump, "-j", "1", "--baseline", ignoring)
    assert code == 1
    assert "CREATE error (admitted) -> error (rejected)" in out


def test_without_a_baseline_new_denials_changes_and_counts_agree(tmp_path):
    new, _, dump = files(tmp_path, [deployment(f"d{i}", i) for i in range(7)])
    code, out, _ = run("impact", new, "--dump", dump, "-j", "1", "-o", "json")
    report = json.loads(out)
    assert code == 1
    assert report["newDenials"] == report["counts"]["deniedNewly"] == 3
    assert report["changed"] == report["counts"]["changed"] == 3
    assert [row["name"] for row in report["listed"]] == ["d4", "d5", "d6"]
    code, out, _ = run("impact", new, "--dump", dump, "-j", "1")
    assert "3 newly denied; 3 objects the policies affect:" in out


def test_policies_kubernetes_would_refuse_are_refused_before_the_dump_is_read(tmp_path):
    new, old, dump = files(tmp_path, [deployment("d", 1)])
    broken = replica_limit(5)
    broken["spec"]["validations"][0]["expression"] = "object.spec.replicas <="
    (tmp_path / "broken.yaml").write_text(yaml.safe_dump(broken))
    refusal = "the policies are not valid for Kubernetes 1.34: fix them before evaluating\n"
    code, out, err = run(
        "impact", str(tmp_path / "broken.yaml"), "--dump", dump, "--k8s-version", "1.34"
    )
    assert (code, out) == (1, "")
    assert "ValidatingAdmissionPolicy 'replica-limit.example.com': spec.validations[0]" in err
    assert err.endswith(refusal)
    code, out, err = run(
        "impact",
        new,
        "--dump",
        dump,
        "--k8s-version",
        "1.34",
        "--baseline",
        str(tmp_path / "broken.yaml"),
    )
    assert (code, out) == (1, "")
    assert err.startswith("--baseline: ValidatingAdmissionPolicy") and err.endswith(refusal)


def test_policy_files_without_a_policy_are_an_input_error(tmp_path):
    _, _, dump = files(tmp_path, [deployment("d", 1)])
    (tmp_path / "empty.yaml").write_text("")
    (tmp_path / "objects.yaml").write_text(yaml.safe_dump(deployment("d", 1)))
    for path in ("empty.yaml", "objects.yaml"):
        code, _, err = run("impact", str(tmp_path / path), "--dump", dump)
        assert code == 2
        assert err == (
            "policyeditor impact: error: no ValidatingAdmissionPolicy or "
            "MutatingAdmissionPolicy in the files given\n"
        )


def test_a_baseline_without_policies_is_no_baseline(tmp_path):
    new, _, dump = files(tmp_path, [deployment("small", 1), deployment("big", 9)])
    (tmp_path / "empty.yaml").write_text("")
    with_empty = run(
        "impact",
        new,
        "--dump",
        dump,
        "-j",
        "1",
        "-o",
        "json",
        "--baseline",
        str(tmp_path / "empty.yaml"),
    )
    without = run("impact", new, "--dump", dump, "-j", "1", "-o", "json")
    assert with_empty == without
    assert with_empty[0] == 1 and json.loads(with_empty[1])["newDenials"] == 1


def run_process(*argv: str, stdin: bytes = b"", shell: bool = False) -> subprocess.CompletedProcess:
    """The command in a process of its own, reading `stdin` from a real pipe."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "policyeditor.cli", *argv]
    if shell:  # bash, for <(...): argv[-1] is the process substitution's command
        command = ["bash", "-c", shlex.join(command[:-1]) + f" <({argv[-1]})"]
    return subprocess.run(
        command, input=stdin, capture_output=True, env=env, timeout=120, check=False
    )


def test_a_dump_piped_to_standard_input_is_read_whole(tmp_path):
    new, _, _ = files(tmp_path, [])
    data = kubectl_json([deployment("small", 1), deployment("big", 9)])
    for where in ("-", "/dev/stdin"):
        done = run_process("impact", new, "-j", "1", "-o", "json", "--dump", where, stdin=data)
        assert done.returncode == 1, done.stderr
        report = json.loads(done.stdout)
        assert (report["objects"], report["newDenials"]) == (2, 1)
    done = run_process("impact", new, "-j", "1", "--dump", "-", stdin=gzip.compress(data))
    assert done.returncode == 1 and done.stdout.startswith(b"2 objects evaluated")


def test_a_dump_from_process_substitution_is_read_whole(tmp_path):
    new, _, dump = files(tmp_path, [deployment("small", 1), deployment("big", 9)])
    done = run_process("impact", new, "-j", "1", "--dump", f"zcat {shlex.quote(dump)}", shell=True)
    assert done.returncode == 1, done.stderr
    assert done.stdout.startswith(b"2 objects evaluated")


def test_namespaces_can_come_from_standard_input(tmp_path):
    new, _, dump = files(tmp_path, [deployment("big", 9)])
    namespaces = yaml.safe_dump(
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default"}}
    )
    done = run_process(
        "impact",
        new,
        "-j",
        "1",
        "-o",
        "json",
        "--dump",
        dump,
        "--namespaces",
        "-",
        stdin=namespaces.encode(),
    )
    assert done.returncode == 1, done.stderr
    assert json.loads(done.stdout)["namespacesMissing"] == []


def test_a_piped_dump_past_the_size_limit_is_refused_as_the_reader_refuses_it(
    tmp_path, monkeypatch
):
    monkeypatch.setattr("policyeditor.engine.impact.MAX_DUMP_BYTES", 1024 * 1024)
    new, _, _ = files(tmp_path, [])
    read, write = os.pipe()

    def feed() -> None:  # a pipe holds 64 KiB: the rest is written as the command reads
        with os.fdopen(write, "wb") as pipe, contextlib.suppress(BrokenPipeError):
            pipe.write(b" " * (3 * 1024 * 1024))

    feeder = threading.Thread(target=feed)
    feeder.start()
    try:
        code, _, err = run("impact", new, "--dump", f"/dev/fd/{read}")
    finally:
        os.close(read)  # the writer stops with a broken pipe
        feeder.join()
    assert code == 2
    assert err == "policyeditor impact: error: the dump is larger than 1 MiB\n"


@pytest.mark.parametrize(
    "text",
    ["", "  \n\n", "---\n", '{"kind": "List", "apiVersion": "v1", "items": []}'],
    ids=["empty", "whitespace", "an empty document", "an empty List"],
)
def test_a_dump_without_objects_is_an_input_error(tmp_path, text):
    new, _, _ = files(tmp_path, [])
    (tmp_path / "empty.json").write_text(text)
    code, out, err = run("impact", new, "--dump", str(tmp_path / "empty.json"))
    assert (code, out) == (2, "")
    assert err == "policyeditor impact: error: The dump holds no objects.\n"


def test_an_unreadable_namespaces_file_is_named_in_the_error(tmp_path):
    new, _, dump = files(tmp_path, [deployment("d", 1)])
    (tmp_path / "ns.yaml").write_text("metadata: {name: default}\n")
    code, _, err = run("impact", new, "--dump", dump, "--namespaces", str(tmp_path / "ns.yaml"))
    assert code == 2
    assert err == (
        f"policyeditor impact: error: --namespaces {tmp_path / 'ns.yaml'}: "
        "object 1 of the file has no apiVersion and kind\n"
    )


@pytest.mark.parametrize("text", ["", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"])
def test_a_namespaces_file_without_namespaces_is_an_input_error(tmp_path, text):
    # Every namespaceSelector would match nothing, and what it selects would quietly pass.
    new, _, dump = files(tmp_path, [deployment("d", 1)])
    (tmp_path / "ns.yaml").write_text(text)
    code, out, err = run("impact", new, "--dump", dump, "--namespaces", str(tmp_path / "ns.yaml"))
    assert (code, out) == (2, "")
    assert err == (
        f"policyeditor impact: error: --namespaces {tmp_path / 'ns.yaml'}: it holds no Namespace "
        "objects (give the output of `kubectl get namespaces -o yaml`, or leave it out to use the "
        "Namespace objects of the dump)\n"
    )


def test_a_missing_namespaces_file_is_named_once(tmp_path):
    new, _, dump = files(tmp_path, [deployment("d", 1)])
    missing = tmp_path / "ns.yaml"
    code, _, err = run("impact", new, "--dump", dump, "--namespaces", str(missing))
    assert code == 2
    assert err.count(str(missing)) == 1 and "No such file" in err


def test_the_dump_and_the_namespaces_cannot_both_be_standard_input(tmp_path):
    new, _, _ = files(tmp_path, [deployment("d", 1)])
    code, _, err = run("impact", new, "--dump", "/dev/stdin", "--namespaces", "-")
    assert code == 2 and "cannot both read standard input" in err


def test_crds_type_and_default_the_custom_resources_of_the_dump(tmp_path):
    rules = [
        {
            "apiGroups": ["example.com"],
            "apiVersions": ["v1"],
            "operations": ["CREATE", "UPDATE"],
            "resources": ["widgets"],
        }
    ]
    check = {"expression": "!has(object.spec.size) || object.spec.size <= 2"}
    policy = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": "small-widgets"},
        "spec": {
            "failurePolicy": "Fail",
            "matchConstraints": {"resourceRules": rules},
            "validations": [check],
        },
    }
    crd = widget_crd({"type": "object", "properties": {"size": {"type": "integer", "default": 3}}})
    (tmp_path / "policy.yaml").write_text(yaml.safe_dump_all(bound(policy)))
    (tmp_path / "crd.yaml").write_text(yaml.safe_dump(crd))
    (tmp_path / "dump.json").write_bytes(
        kubectl_json([{**widget(), "metadata": {"name": "w", "namespace": "default"}}])
    )
    argv = [
        "impact",
        str(tmp_path / "policy.yaml"),
        "--dump",
        str(tmp_path / "dump.json"),
        "-j",
        "1",
        "-o",
        "json",
    ]
    code, out, _ = run(*argv)
    assert code == 0 and json.loads(out)["counts"]["CREATE"]["allow"] == 1
    code, out, err = run(*argv, "--crd", str(tmp_path / "crd.yaml"))
    assert code == 1, err
    assert json.loads(out)["counts"]["CREATE"]["deny"] == 1  # size defaulted to 3 by the CRD


def test_a_yaml_error_in_the_dump_keeps_its_line_column_and_problem_on_one_line(tmp_path):
    new, _, _ = files(tmp_path, [])
    (tmp_path / "dump.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, labels: {x: y z: w}}\n"
    )
    code, _, err = run("impact", new, "--dump", str(tmp_path / "dump.yaml"))
    assert code == 2
    assert err == (
        "policyeditor impact: error: invalid YAML at line 3, column 36: did not find expected "
        "',' or '}' (while parsing a flow mapping)\n"
    )
