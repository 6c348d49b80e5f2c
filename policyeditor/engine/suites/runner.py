"""Running policy test suites and reporting: `run(paths)` is the entry point of `policyeditor test`.

Which suites lie under the paths is plan.py's job; a malformed suite counts as one failure.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from policyeditor.engine.suites.coverage import Coverage, merge
from policyeditor.engine.suites.model import CaseResult, SuiteError
from policyeditor.engine.suites.plan import SuiteUnit, run_unit, suite_plan
from policyeditor.engine.suites.pool import auto_jobs, run_units
from policyeditor.engine.suites.vacuous import STRICT_FAILURE


@dataclass
class Report:
    """Every case's result and every malformed suite; `failed` counts both."""

    results: list[CaseResult] = field(default_factory=list)
    errors: list[SuiteError] = field(default_factory=list)
    # With coverage on (run(coverage=True)): what the cases evaluated of each policy.
    coverage: Coverage | None = None

    @property
    def vacuous(self) -> list[CaseResult]:
        """Cases that passed vacuously (suites/vacuous.py); under --strict they failed instead."""
        return [r for r in self.results if r.vacuous and r.passed]

    @property
    def passed(self) -> int:
        """Cases that passed."""
        return sum(1 for r in self.results if r.passed)

    @property
    def failed(self) -> int:
        """Cases that failed plus malformed suites."""
        return sum(1 for r in self.results if not r.passed) + len(self.errors)

    @property
    def ok(self) -> bool:
        """True when nothing failed."""
        return self.failed == 0

    def summary(self) -> str:
        """The last line: `N passed, N failed`."""
        return f"{self.passed} passed, {self.failed} failed"

    def to_text(self) -> str:
        """A line per case (PASS/FAIL), the reasons of each failure indented below it, the summary."""
        lines = []
        for error in self.errors:
            lines.append(f"FAIL  {error.source}: {error.message}")
        for result in self.results:
            status = "PASS" if result.passed else "FAIL"
            lines.append(f"{status}  {result.case.suite} :: {result.case.name}")
            for failure in result.failures:
                lines.extend("      " + line for line in failure.splitlines())
            for note in result.notes:
                lines.append("      note: " + note)
            if result.passed and result.vacuous:
                lines.append(f"      warning: passed vacuously: {result.vacuous}")
        if self.coverage is not None:
            lines.extend(self.coverage.to_lines())
        vacuous = len(self.vacuous)
        if vacuous:
            cases = "case" if vacuous == 1 else "cases"
            lines.append(f"warning: {vacuous} {cases} passed vacuously (--strict fails them)")
        lines.append(self.summary())
        return "\n".join(lines) + "\n"

    def to_dict(self) -> dict[str, Any]:
        """JSON form for `policyeditor test -o json`."""
        data: dict[str, Any] = {
            "passed": self.passed,
            "failed": self.failed,
            "vacuous": len(self.vacuous),
            "errors": [{"source": e.source, "message": e.message} for e in self.errors],
            "cases": [r.to_dict() for r in self.results],
        }
        if self.coverage is not None:
            data["coverage"] = self.coverage.to_dict()
        return data


def run(
    paths: Iterable[str | os.PathLike[str]],
    *,
    run_regex: str | None = None,
    version: str | None = None,
    jobs: int | None = 1,
    defaulting: bool = True,
    coverage: bool = False,
    strict: bool = False,
    crds: Sequence[dict[str, Any]] = (),
) -> Report:
    """Discover and run every suite under `paths`; `run_regex` keeps cases whose `suite/name` matches it.

    jobs > 1 runs suites in up to that many worker processes (pool.py), None as many as
    there are CPUs when the suites are big enough to gain from it; the report is the same, in
    the same order, but each case of a worker's result keeps only its name, suite, source and
    layout (its inputs stay in the worker). Callers inside a threaded server keep the default:
    one process, no fork. `defaulting=False` evaluates every case without the API server's
    defaulting (a suite or case can also say `defaulting: false`). `coverage` adds what the cases
    evaluated of each policy (Report.coverage); `strict` fails the cases that passed vacuously.
    `crds` are CRD documents in force for every suite (`policyeditor test --crd`), handed to the
    workers as documents.
    """
    if isinstance(paths, str | os.PathLike):
        paths = [paths]  # one path given on its own, not a string to iterate
    report = Report()
    if run_regex:
        try:
            re.compile(run_regex)
        except re.error as error:
            report.errors.append(
                SuiteError("-run", f"invalid regular expression {run_regex!r}: {error}")
            )
            return report
    plan = suite_plan(paths)
    units = [item for item in plan if isinstance(item, SuiteUnit)]
    if jobs is None and len(units) > 1:
        jobs = auto_jobs(units)
    if jobs is not None and jobs > 1 and len(units) > 1:
        outcomes = iter(
            run_units(
                units,
                jobs,
                run_regex=run_regex,
                version=version,
                defaulting=defaulting,
                coverage=coverage,
                crds=crds,
            )
        )
    else:
        outcomes = (
            run_unit(
                unit,
                run_regex=run_regex,
                version=version,
                defaulting=defaulting,
                coverage=coverage,
                crds=crds,
            )
            for unit in units
        )
    for item in plan:
        if isinstance(item, SuiteError):
            report.errors.append(item)
            continue
        results, errors = next(outcomes)
        report.errors.extend(errors)
        report.results.extend(results)
    if strict:
        for result in report.results:
            if result.passed and result.vacuous:
                result.passed = False
                result.failures.append(STRICT_FAILURE.format(reason=result.vacuous))
    if coverage:
        report.coverage = merge((r.trace, r.case.suite) for r in report.results)
    return report
