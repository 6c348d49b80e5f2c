"""A CLI evaluation that runs out of memory is stopped with one friendly line and exit 1."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import yaml

from policyeditor.cli import main
from policyeditor.engine.cel import strings_format
from tests.builders import replica_limit
from tests.engine.impact.helpers import RUNAWAY

ROOT = Path(__file__).resolve().parent.parent
# `ulimit -v` for the command: the runaway expression fills 256 MiB within a few tenths of a second.
CAPPED = (
    "import resource, sys\n"
    "resource.setrlimit(resource.RLIMIT_AS, (256 << 20, 256 << 20))\n"
    "from policyeditor.cli import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)
DEPLOYMENT = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}}


def test_eval_of_a_policy_that_fills_the_memory_cap_prints_the_limit_and_exits_1(tmp_path):
    policy = replica_limit(5)
    # Ignore: as an expression error the request was admitted (exit 0) before this was fixed.
    policy["spec"]["failurePolicy"] = "Ignore"
    policy["spec"]["validations"][0]["expression"] = RUNAWAY
    (tmp_path / "policy.yaml").write_text(yaml.safe_dump(policy))
    (tmp_path / "object.yaml").write_text(yaml.safe_dump(DEPLOYMENT))
    completed = subprocess.run(
        [sys.executable, "-c", CAPPED, "eval", "policy.yaml", "--object", "object.yaml"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=120,
    )
    assert completed.stderr == (
        "policyeditor eval: evaluation exceeded the memory limit of 256 MiB and was stopped\n"
    )
    assert completed.returncode == 1
    assert "RESOURCE_EXHAUSTED" not in completed.stdout


def test_cel_that_runs_out_of_memory_is_one_line_and_exit_1(monkeypatch):
    def exhausted(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(strings_format, "format_string", exhausted)
    out, err = io.StringIO(), io.StringIO()
    status = main(["cel", "'%s'.format(['a']) == 'a'"], stdout=out, stderr=err)
    assert status == 1
    assert out.getvalue() == ""
    # Without `ulimit -v` no cap is known: "the memory or resource limit".
    assert err.getvalue().startswith("policyeditor cel: evaluation exceeded the memory")
    assert err.getvalue().endswith(" and was stopped\n")
