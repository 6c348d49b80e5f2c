"""Benchmark 9: what coverage and the vacuous-pass check cost `policyeditor test`.

A generated PolicyTest suite (benchmark 4's: one policy, one binding, inline Deployments, some
allowed, some denied) is loaded once; its cases are run side by side, in alternating rounds,
without coverage (the default) and with `--coverage` (each case's trace kept and merged).
Coverage off leaves one thing on the path: the vacuous-pass check of each passing case, timed on
its own against the whole case. Goals: the vacuous check costs <= 1% of a case (no measurable
overhead with coverage off); coverage on costs <= 10% more per case.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from bench_test_runner import write_suite
from common import Goal, interleaved, per_call

CASES = 300


def run() -> list[Goal]:
    """Measure and print benchmark 9."""
    from policyeditor.engine import admission, suites
    from policyeditor.engine.suites.coverage import merge, trace
    from policyeditor.engine.suites.vacuous import vacuous_reason

    with tempfile.TemporaryDirectory(prefix="policyeditor-bench-coverage-") as tmp:
        directory = write_suite(Path(tmp) / "suite", CASES)
        (unit,) = [u for u in suites.suite_plan([directory]) if isinstance(u, suites.SuiteUnit)]
        cases, errors = suites.load_unit(unit)
        assert len(cases) == CASES and not errors, errors

    def plain() -> None:
        for case in cases:
            suites.run_case(case)

    def covered() -> None:
        merge((suites.run_case(case, coverage=True).trace, case.suite) for case in cases)

    per_suite = interleaved({"off": plain, "on": covered}, repeat=1, rounds=7)
    off, on = per_suite["off"] / CASES, per_suite["on"] / CASES

    # The one addition with coverage off: the vacuous check, on a real outcome of a case.
    case = cases[0]
    request = admission.AdmissionRequest.build(object=case.object, version=case.version)
    outcome = admission.evaluate(case.documents, request, version=case.version or "1.36")
    check = per_call(lambda: vacuous_reason(case.expect, outcome), repeat=20_000, rounds=5)
    keep = per_call(lambda: trace(case.documents, outcome), repeat=20_000, rounds=5)
    print(
        f"{CASES} cases: coverage off {off * 1e6:.0f} us/case, on {on * 1e6:.0f} us/case "
        f"({on / off:.3f}x); vacuous check {check * 1e6:.2f} us ({check / off:.2%} of a case), "
        f"trace {keep * 1e6:.2f} us ({keep / off:.2%} of a case)"
    )
    return [
        Goal("9 vacuous check vs one case (coverage off)", check / off, 0.01),
        Goal("9 test runner with --coverage vs without, per case", on / off, 1.10),
    ]
