"""Policy test suites: find them (our format, kat directories, kaptest manifests), run them, report.

`run(paths)` is the entry point of `policyeditor test`. Discovery under a directory picks up
`*.policytest.yaml` files, `kaptest.yaml` (and `*.kaptest.yaml`) manifests and kat directories (policy
files next to a `tests/` folder). A file given explicitly is read by its content: a PolicyTest, else a
kaptest manifest (kaptest allows any file name). A malformed suite counts as one failure.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from policyeditor.engine.testing_case import run_case
from policyeditor.engine.testing_files import (
    display,
    load_documents,
)
from policyeditor.engine.testing_kaptest import is_kaptest_name, load_kaptest, looks_like_kaptest
from policyeditor.engine.testing_kat import TESTS_DIR, is_kat_dir, is_policy_file, load_kat
from policyeditor.engine.testing_model import (
    CaseResult,
    Expectation,
    SuiteError,
    TestCase,
)
from policyeditor.engine.testing_policytest import (
    is_policytest,
    load_policytest,
    looks_like_policytest,
)

__all__ = [
    "CaseResult",
    "Expectation",
    "Report",
    "SuiteError",
    "SuiteUnit",
    "TestCase",
    "discover",
    "load_unit",
    "run",
    "run_case",
    "run_unit",
    "suite_plan",
]

_SKIP_DIRS = {"node_modules", "__pycache__", "venv"}


@dataclass
class Report:
    """Every case's result and every malformed suite; `failed` counts both."""

    results: list[CaseResult] = field(default_factory=list)
    errors: list[SuiteError] = field(default_factory=list)

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
        lines.append(self.summary())
        return "\n".join(lines) + "\n"

    def to_dict(self) -> dict:
        """JSON form for `policyeditor test -o json`."""
        return {
            "passed": self.passed,
            "failed": self.failed,
            "errors": [{"source": e.source, "message": e.message} for e in self.errors],
            "cases": [r.to_dict() for r in self.results],
        }


def run(
    paths: Iterable[str | os.PathLike],
    *,
    run_regex: str | None = None,
    version: str | None = None,
    jobs: int | None = 1,
) -> Report:
    """Discover and run every suite under `paths`; `run_regex` keeps cases whose `suite/name` matches it.

    jobs > 1 runs suites in up to that many worker processes (testing_pool), None as many as
    there are CPUs when the suites are big enough to gain from it; the report is the same, in
    the same order, but each case of a worker's result keeps only its name, suite, source and
    layout (its inputs stay in the worker). Callers inside a threaded server keep the default:
    one process, no fork.
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
        from policyeditor.engine.testing_pool import auto_jobs

        jobs = auto_jobs(units)
    if jobs is not None and jobs > 1 and len(units) > 1:
        from policyeditor.engine.testing_pool import run_units

        outcomes = iter(run_units(units, jobs, run_regex=run_regex, version=version))
    else:
        outcomes = (run_unit(unit, run_regex=run_regex, version=version) for unit in units)
    for item in plan:
        if isinstance(item, SuiteError):
            report.errors.append(item)
            continue
        results, errors = next(outcomes)
        report.errors.extend(errors)
        report.results.extend(results)
    return report


@dataclass(frozen=True)
class SuiteUnit:
    """One suite to load: its loader, its path, and the one kat case asked for (else None)."""

    loader: Any
    path: Path
    only: str | None = None


def suite_plan(paths: Iterable[str | os.PathLike]) -> list[SuiteUnit | SuiteError]:
    """The suites under `paths` (each once) and the paths' errors, in the order they are met."""
    plan: list[SuiteUnit | SuiteError] = []
    seen: set[Path] = set()
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            plan.append(SuiteError(display(path), "no such file or directory"))
            continue
        found = list(_suites_under(path))
        if not found:
            plan.append(
                SuiteError(
                    display(path),
                    "no test suites found (*.policytest.yaml, kaptest.yaml, or a kat directory with tests/)",
                )
            )
        for loader, suite_path, only in found:
            key = suite_path.resolve()
            if key in seen and only is None:
                continue
            seen.add(key)
            plan.append(SuiteUnit(loader, suite_path, only))
    return plan


def load_unit(
    unit: SuiteUnit, *, version: str | None = None
) -> tuple[list[TestCase], list[SuiteError]]:
    """A suite's cases, or the error that makes it malformed."""
    try:
        loaded = unit.loader(unit.path, default_version=version)
    except SuiteError as error:
        return [], [error]
    except Exception as error:  # a loader bug must not hide the other suites
        message = f"cannot load suite: {type(error).__name__}: {error}"
        return [], [SuiteError(display(unit.path), message)]
    return [c for c in loaded if unit.only is None or c.name == unit.only], []


def run_unit(
    unit: SuiteUnit, *, run_regex: str | None = None, version: str | None = None
) -> tuple[list[CaseResult], list[SuiteError]]:
    """Load one suite and run its cases (those `run_regex` matches, when given)."""
    cases, errors = load_unit(unit, version=version)
    pattern = re.compile(run_regex) if run_regex else None
    results = [
        run_case(case) for case in cases if pattern is None or pattern.search(case.full_name)
    ]
    return results, errors


def discover(
    paths: Iterable[str | os.PathLike], *, version: str | None = None
) -> tuple[list[TestCase], list[SuiteError]]:
    """Load every suite under `paths` (each loaded once) into cases; malformed suites become errors."""
    cases: list[TestCase] = []
    errors: list[SuiteError] = []
    for item in suite_plan(paths):
        if isinstance(item, SuiteError):
            errors.append(item)
            continue
        loaded, load_errors = load_unit(item, version=version)
        cases.extend(loaded)
        errors.extend(load_errors)
    return cases, errors


def _suites_under(path: Path) -> Iterable[tuple[Any, Path, str | None]]:
    """(loader, path, only-this-case) for each suite a path names."""
    if path.is_file():
        yield _file_suite(path)
        return
    if path.name == TESTS_DIR and is_kat_dir(path.parent):
        yield load_kat, path.parent, None
        return
    for root, dirs, files in os.walk(path):
        dirs[:] = sorted(
            d for d in dirs if d not in _SKIP_DIRS and (not d.startswith(".") or d == ".kaptest")
        )
        here = Path(root)
        if is_kat_dir(here):
            yield load_kat, here, None
            dirs[:] = [d for d in dirs if d != TESTS_DIR]
        for name in sorted(files):
            file = here / name
            if is_policytest(file):
                yield load_policytest, file, None
            elif is_kaptest_name(file):
                yield load_kaptest, file, None


def _file_suite(path: Path) -> tuple[Any, Path, str | None]:
    if is_policytest(path):
        return load_policytest, path, None
    if path.parent.name == TESTS_DIR and is_kat_dir(path.parent.parent):
        return load_kat, path.parent.parent, _kat_base(path)
    if is_policy_file(path) and is_kat_dir(path.parent):
        return load_kat, path.parent, None
    try:
        docs = load_documents(path, what="test suite")
    except SuiteError:
        return load_kaptest, path, None  # the kaptest loader reports the same read error
    if len(docs) == 1 and looks_like_policytest(docs[0]):
        return load_policytest, path, None
    if len(docs) == 1 and looks_like_kaptest(docs[0]):
        return load_kaptest, path, None
    kinds = [str(d["kind"]) for d in docs if isinstance(d.get("kind"), str) and "apiVersion" in d]
    if kinds:
        return _not_a_suite(f"holds {', '.join(kinds)}, not a test suite"), path, None
    return load_kaptest, path, None  # kaptest accepts any name: its checks say what is missing


def _not_a_suite(message: str) -> Any:
    """A loader that refuses the file: Kubernetes objects given where a suite was expected."""
    return functools.partial(_refuse, message=message)  # a partial pickles, for testing_pool


def _refuse(path: Path, *, message: str, **_: Any) -> list[TestCase]:
    hint = "(expected a PolicyTest, a kaptest manifest, or a kat directory with tests/)"
    raise SuiteError(display(path), f"{message} {hint}")


def _kat_base(path: Path) -> str | None:
    from policyeditor.engine.testing_kat import _INPUTS

    for suffix in _INPUTS:
        if path.name.endswith(suffix):
            return path.name[: -len(suffix)]
    return None
