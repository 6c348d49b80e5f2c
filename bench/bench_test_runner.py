"""Benchmark 4: `policyeditor test` over a generated suite of 10,000 cases.

The suite (policy, binding and PolicyTest files of 1,000 inline Deployments each, under the 3 MiB
input limit, some allowed, some denied) is written to a temporary directory. Startup: `policyeditor test` in a subprocess on
a one-case suite (interpreter start, imports, discovery, one case, report). Throughput: the full
suite run in-process (`suites.run`), cases per second, side by side with benchmark 1's full
`evaluate` of the same policy and object, as `policyeditor test` runs it by default (`-j auto`: a
worker process per CPU for suites this big) and in one process (`-j 1`, printed beside it). Peak
memory: the full suite in a subprocess, the maximum resident set size of the runner and of its
largest worker. Goals: startup < 1 s; cases/s at least half of benchmark 1's rate.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml
from bench_engine import ours
from common import Goal, per_call
from fixtures import binding, deployment, policy

CASES = 10_000
PER_FILE = 1_000
ROOT = Path(__file__).resolve().parent.parent


def _case(index: int) -> dict:
    replicas = index % 15 + 1  # 11..15 exceed the limit of 10
    obj = deployment(replicas)
    obj["metadata"]["name"] = f"web-{index}"
    expect: dict = {"result": "allow"}
    if replicas > 10:
        expect = {"result": "deny", "messages": [f"replicas {replicas} exceed 10"]}
    return {"name": f"case-{index}", "object": obj, "expect": expect}


def write_suite(directory: Path, cases: int) -> Path:
    """The policy, binding and PolicyTest files holding `cases` cases; returns the directory."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "policy.yaml").write_text(yaml.safe_dump(policy(), sort_keys=False))
    (directory / "binding.yaml").write_text(yaml.safe_dump(binding(), sort_keys=False))
    # CSafeDumper when available: writing the suite is not what is measured.
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    for first in range(0, cases, PER_FILE):
        suite = {
            "apiVersion": "policyeditor.dev/v1",
            "kind": "PolicyTest",
            "policies": ["policy.yaml", "binding.yaml"],
            "cases": [_case(i) for i in range(first, min(cases, first + PER_FILE))],
        }
        path = directory / f"part-{first // PER_FILE:02d}.policytest.yaml"
        path.write_text(yaml.dump(suite, Dumper=dumper, sort_keys=False))
    return directory


# `policyeditor test` itself, plus its own peak RSS on exit (VmHWM: getrusage's ru_maxrss
# survives exec, so it would count the parent's memory) and its largest worker's (the workers
# are its children and exit before it).
_MAIN = (
    "import atexit, re, resource, sys; "
    "atexit.register(lambda: sys.stderr.write('peak-rss-kib ' + re.search("
    "r'VmHWM:\\s+(\\d+)', open('/proc/self/status').read()).group(1) + ' ' + "
    "str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) + '\\n')); "
    "from policyeditor.cli import main; sys.argv[0] = 'policyeditor'; sys.exit(main())"
)


def _command(path: Path) -> list[str]:
    return [sys.executable, "-c", _MAIN, "test", str(path)]


def _subprocess(path: Path) -> tuple[float, str, tuple[int, int]]:
    start = time.perf_counter()
    done = subprocess.run(_command(path), capture_output=True, text=True, cwd=ROOT, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(
            f"policyeditor test failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
        )
    peak = [
        (int(line.split()[1]), int(line.split()[2]))
        for line in done.stderr.splitlines()
        if line.startswith("peak-rss")
    ]
    return elapsed, done.stdout.strip().splitlines()[-1], peak[-1] if peak else (0, 0)


def run() -> list[Goal]:
    """Measure and print benchmark 4."""
    from policyeditor.engine import suites
    from policyeditor.engine.suites import pool

    with tempfile.TemporaryDirectory(prefix="policyeditor-bench-suite-") as tmp:
        small = write_suite(Path(tmp) / "small", 1)
        big = write_suite(Path(tmp) / "big", CASES)
        startup = min(_subprocess(small)[0] for _ in range(3))
        print(f"startup (policyeditor test, one case, subprocess): {startup * 1e3:.0f} ms")

        timings = {}
        for jobs in (1, None, 1, None):  # alternated: drift hits both alike; the best of two
            start = time.perf_counter()
            report = suites.run([big], jobs=jobs)
            elapsed = time.perf_counter() - start
            timings[jobs] = min(timings.get(jobs, elapsed), elapsed)
            failed = [r for r in report.results if not r.passed] + list(report.errors)
            assert len(report.results) == CASES and not failed, failed[:3]
        rate, serial_rate = CASES / timings[None], CASES / timings[1]
        evaluate_rate = 1 / per_call(ours(), repeat=200, rounds=3)
        workers = pool.auto_jobs(
            [u for u in suites.suite_plan([big]) if isinstance(u, suites.SuiteUnit)]
        )
        print(
            f"in-process, -j auto ({workers} workers): {CASES} cases in {timings[None]:.2f} s = "
            f"{rate:.0f} cases/s; -j 1: {timings[1]:.2f} s = {serial_rate:.0f} cases/s "
            f"({serial_rate / evaluate_rate:.2f}x); discovery and loading included; "
            f"benchmark 1's evaluate: {evaluate_rate:.0f}/s"
        )

        small_peak = _subprocess(small)[2][0]
        elapsed, summary, (peak_kib, worker_kib) = _subprocess(big)
        print(
            f"subprocess, full suite: {elapsed:.2f} s, '{summary}', peak RSS "
            f"{peak_kib / 1024:.0f} MiB, largest worker {worker_kib / 1024:.0f} MiB "
            f"(one-case suite: {small_peak / 1024:.0f} MiB)"
        )
    return [
        Goal("4 test runner startup (one-case suite)", startup, 1.0, unit=" s"),
        Goal(
            "4 test runner cases/s (-j auto) vs benchmark 1's evaluate rate",
            rate / evaluate_rate,
            0.5,
            unit="x",
            lower_is_better=False,
        ),
    ]
