"""Which suites lie under some paths, and loading and running one of them.

Discovery under a directory picks up `*.policytest.yaml` files, `kaptest.yaml` (and `*.kaptest.yaml`)
manifests, kat directories (policy files next to a `tests/` folder) and Kyverno CLI
`kyverno-test.yaml` files. A file given explicitly is read by its content: a PolicyTest, a Kyverno
CLI Test, another tool's test file (named, not run: formats/foreign.py), else a kaptest manifest
(kaptest allows any file name).
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from policyeditor.engine import schemas
from policyeditor.engine.suites.case import run_case
from policyeditor.engine.suites.files import display, load_documents
from policyeditor.engine.suites.formats.foreign import (
    KNOWN_FILE_NAMES,
    foreign_format,
    not_run_message,
)
from policyeditor.engine.suites.formats.kaptest import (
    is_kaptest_name,
    load_kaptest,
    looks_like_kaptest,
)
from policyeditor.engine.suites.formats.kat import (
    INPUT_SUFFIXES,
    TESTS_DIR,
    is_kat_dir,
    is_policy_file,
    load_kat,
)
from policyeditor.engine.suites.formats.kyverno import (
    is_kyverno_name,
    load_kyverno,
    looks_like_kyverno_test,
)
from policyeditor.engine.suites.formats.policytest import (
    is_policytest,
    load_policytest,
    looks_like_policytest,
)
from policyeditor.engine.suites.model import CaseResult, SuiteError, TestCase

_SKIP_DIRS = {"node_modules", "__pycache__", "venv"}


class SuiteLoader(Protocol):
    """load_policytest, load_kaptest or load_kat: the cases of the suite at `path`."""

    def __call__(self, path: Path, *, default_version: str | None = None) -> list[TestCase]: ...


@dataclass(frozen=True)
class SuiteUnit:
    """One suite to load: its loader, its path, and the one kat case asked for (else None)."""

    loader: SuiteLoader
    path: Path
    only: str | None = None


def suite_plan(paths: Iterable[str | os.PathLike[str]]) -> list[SuiteUnit | SuiteError]:
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
            message = "no test suites found (*.policytest.yaml, kaptest.yaml, kyverno-test.yaml, or a kat directory with tests/)"
            foreign = _foreign_files(path) if path.is_dir() else []
            if foreign:
                # Say why the directory's test files are not run rather than only that none are.
                message += "; " + "; ".join(foreign) + ": formats policyeditor does not run yet"
            plan.append(SuiteError(display(path), message))
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
    unit: SuiteUnit,
    *,
    run_regex: str | None = None,
    version: str | None = None,
    defaulting: bool = True,
    coverage: bool = False,
    crds: Sequence[dict[str, Any]] = (),
) -> tuple[list[CaseResult], list[SuiteError]]:
    """Load one suite and run its cases (those `run_regex` matches, when given).

    `defaulting=False` (`policyeditor test --no-defaulting`) turns defaulting off for every case;
    True leaves each case's own setting. `coverage` keeps each case's trace (suites/coverage.py).
    `crds` (`policyeditor test --crd`) are CRD documents in force for every suite, under the
    suite's own `crds:`.
    """
    if crds:
        try:
            registry = schemas.load_crds(crds)
        except schemas.CrdError as error:
            return [], [SuiteError("--crd", str(error))]
        with schemas.using_crds(registry):
            return run_unit(
                unit,
                run_regex=run_regex,
                version=version,
                defaulting=defaulting,
                coverage=coverage,
            )
    cases, errors = load_unit(unit, version=version)
    if not defaulting:
        for case in cases:
            case.defaulting = False
    pattern = re.compile(run_regex) if run_regex else None
    results = [
        run_case(case, coverage=coverage)
        for case in cases
        if pattern is None or pattern.search(case.full_name)
    ]
    return results, errors


def discover(
    paths: Iterable[str | os.PathLike[str]], *, version: str | None = None
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
            elif is_kyverno_name(file):
                yield load_kyverno, file, None


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
    if any(looks_like_kyverno_test(doc) for doc in docs):
        return load_kyverno, path, None
    foreign = next((what for what in map(foreign_format, docs) if what), None)
    if foreign:
        return _not_run(not_run_message(path, foreign)), path, None
    if len(docs) == 1 and looks_like_kaptest(docs[0]):
        return load_kaptest, path, None
    kinds = [str(d["kind"]) for d in docs if isinstance(d.get("kind"), str) and "apiVersion" in d]
    if kinds:
        return _not_a_suite(f"holds {', '.join(kinds)}, not a test suite"), path, None
    return load_kaptest, path, None  # kaptest accepts any name: its checks say what is missing


def _not_a_suite(message: str) -> Any:
    """A loader that refuses the file: Kubernetes objects given where a suite was expected."""
    return functools.partial(_refuse, message=message)  # a partial pickles, for the worker pool


def _refuse(path: Path, *, message: str, **_: Any) -> list[TestCase]:
    hint = "(expected a PolicyTest, a kaptest manifest, a Kyverno CLI test, or a kat directory with tests/)"
    raise SuiteError(display(path), f"{message} {hint}")


def _not_run(message: str) -> Any:
    """A loader that names the other tool's format a file is in."""
    return functools.partial(_refuse_foreign, message=message)


def _refuse_foreign(path: Path, *, message: str, **_: Any) -> list[TestCase]:
    hint = "(policyeditor runs PolicyTest files, kaptest manifests, kat directories and Kyverno CLI tests)"
    raise SuiteError(display(path), f"{message} {hint}")


def _foreign_files(path: Path) -> list[str]:
    """What the other tools' test files under a directory are, by the names those tools look for."""
    found = []
    for root, dirs, files in os.walk(path):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and not d.startswith("."))
        for name in sorted(set(files) & set(KNOWN_FILE_NAMES)):
            file = Path(root) / name
            try:
                docs = load_documents(file, what="test suite")
            except SuiteError:
                continue
            what = next((w for w in map(foreign_format, docs) if w), None)
            if what:
                found.append(f"{display(file)} is {what}")
    return found


def _kat_base(path: Path) -> str | None:
    for suffix in INPUT_SUFFIXES:
        if path.name.endswith(suffix):
            return path.name[: -len(suffix)]
    return None
