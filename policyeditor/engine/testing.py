"""Policy test suites: find them (our format, kat directories, kaptest manifests), run them, report.

`run(paths)` is the entry point of `policyeditor test`. Discovery under a directory picks up
`*.policytest.yaml` files, `kaptest.yaml` (and `*.kaptest.yaml`) manifests and kat directories (policy
files next to a `tests/` folder). A file given explicitly is read by its content: a PolicyTest, else a
kaptest manifest (kaptest allows any file name). A malformed suite counts as one failure.
"""

from __future__ import annotations

import copy
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from policyeditor.engine.testing_check import check
from policyeditor.engine.testing_files import (
    BINDING_KINDS,
    POLICY_KINDS,
    display,
    load_documents,
    name_of,
)
from policyeditor.engine.testing_kaptest import is_kaptest_name, load_kaptest, looks_like_kaptest
from policyeditor.engine.testing_kat import TESTS_DIR, is_kat_dir, is_policy_file, load_kat
from policyeditor.engine.testing_model import (
    LAYOUT_KAPTEST,
    UNSET,
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
    "TestCase",
    "discover",
    "run",
    "run_case",
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
    paths: Iterable[str | os.PathLike], *, run_regex: str | None = None, version: str | None = None
) -> Report:
    """Discover and run every suite under `paths`; `run_regex` keeps cases whose `suite/name` matches it."""
    if isinstance(paths, str | os.PathLike):
        paths = [paths]  # one path given on its own, not a string to iterate
    report = Report()
    pattern = None
    if run_regex:
        try:
            pattern = re.compile(run_regex)
        except re.error as error:
            report.errors.append(
                SuiteError("-run", f"invalid regular expression {run_regex!r}: {error}")
            )
            return report
    cases, errors = discover(paths, version=version)
    report.errors.extend(errors)
    for case in cases:
        if pattern is not None and not pattern.search(case.full_name):
            continue
        report.results.append(run_case(case))
    return report


def discover(
    paths: Iterable[str | os.PathLike], *, version: str | None = None
) -> tuple[list[TestCase], list[SuiteError]]:
    """Load every suite under `paths` (each loaded once) into cases; malformed suites become errors."""
    cases: list[TestCase] = []
    errors: list[SuiteError] = []
    seen: set[Path] = set()
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            errors.append(SuiteError(display(path), "no such file or directory"))
            continue
        found = list(_suites_under(path))
        if not found:
            errors.append(
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
            try:
                loaded = loader(suite_path, default_version=version)
            except SuiteError as error:
                errors.append(error)
                continue
            except Exception as error:  # a loader bug must not hide the other suites
                errors.append(
                    SuiteError(
                        display(suite_path), f"cannot load suite: {type(error).__name__}: {error}"
                    )
                )
                continue
            cases.extend(c for c in loaded if only is None or c.name == only)
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

    def refuse(path: Path, **_: Any) -> list[TestCase]:
        hint = "(expected a PolicyTest, a kaptest manifest, or a kat directory with tests/)"
        raise SuiteError(display(path), f"{message} {hint}")

    return refuse


def _kat_base(path: Path) -> str | None:
    from policyeditor.engine.testing_kat import _INPUTS

    for suffix in _INPUTS:
        if path.name.endswith(suffix):
            return path.name[: -len(suffix)]
    return None


def run_case(case: TestCase) -> CaseResult:
    """Evaluate one case and compare; never raises (an engine failure is a failed case)."""
    if case.error:
        return CaseResult(case=case, passed=False, failures=[case.error])
    try:
        return _evaluate_case(case)
    except Exception as error:
        return CaseResult(
            case=case,
            passed=False,
            failures=[f"evaluation failed: {type(error).__name__}: {error}"],
        )


def _evaluate_case(case: TestCase) -> CaseResult:
    from policyeditor.engine import validation, versions
    from policyeditor.engine.errors import InputError
    from policyeditor.engine.testing_authorizer import MockAuthorizer, parse_entries

    try:
        version = versions.normalize_version(case.version)
    except ValueError as error:
        return CaseResult(case=case, passed=False, failures=[str(error)])
    # kaptest checks manifests against the schema only, and its own examples rely on it (a
    # messageExpression adding a string to an int variable): API-server validation is ours alone.
    relevant = _relevant_documents(case)
    problems = [] if case.cel_only else _validation_problems(relevant, version, validation)
    if problems:
        return CaseResult(
            case=case, passed=False, failures=["the policies are not valid:", *problems]
        )
    from policyeditor.engine import admission

    documents = _cel_only(case.documents, case.policy) if case.cel_only else case.documents
    if case.layout == "policytest" and case.binding is None:
        documents = [d for d in documents if d.get("kind") not in BINDING_KINDS]
    try:
        request = admission.AdmissionRequest.build(
            object=case.object,
            old_object=case.old_object,
            operation=case.operation,
            user_info=case.user_info,
            overrides=case.request or None,
            version=version,
        )
    except (InputError, ValueError) as error:
        return CaseResult(
            case=case, passed=False, failures=[f"cannot build the admission request: {error}"]
        )
    kwargs: dict[str, Any] = {"version": version, "resources": list(case.resources)}
    if case.params is not UNSET:
        kwargs["params"] = case.params
    if case.namespace_object is not UNSET:
        kwargs["namespace_object"] = case.namespace_object
    # Without mocks every check gets NoOpinion, as for a user RBAC says nothing about; leaving
    # `authorizer` unbound would make any check an evaluation error instead.
    kwargs["authorizer"] = MockAuthorizer(parse_entries(case.authorizer or []))
    if case.cel_only:
        kwargs["check_match"] = False  # kaptest does not apply matchConstraints
    outcome = admission.evaluate(
        documents, request, policy=case.policy, binding=case.binding, **kwargs
    )
    failures = check(
        case.expect, outcome, input_object=case.object, kaptest=case.layout == LAYOUT_KAPTEST
    )
    mock = kwargs["authorizer"]
    if failures and case.authorizer is not None:
        # a mock that does not match the check asked is the usual reason such a case fails
        asked = [_describe_check(attributes) for attributes in mock.checks] or ["none"]
        failures.append("authorization checks asked: " + "; ".join(asked))
    return CaseResult(case=case, passed=not failures, failures=failures, outcome=_summary(outcome))


def _summary(outcome: Any) -> dict[str, Any]:
    """The response fields of EvaluationResult.to_dict(), the part of an outcome reports print."""
    # The object, patch, diff and per-policy steps are left out: no report format shows them,
    # converting them cost more than the evaluation's bookkeeping, and a run keeps every result.
    return {
        "result": outcome.result,
        "allowed": outcome.allowed,
        "statusCode": outcome.status_code,
        "reason": outcome.reason,
        "message": outcome.message,
        "warnings": list(outcome.warnings),
        "auditAnnotations": dict(outcome.audit_annotations),
        "errors": list(outcome.errors),
        "causes": list(outcome.causes),
    }


# (ids of the documents, version) -> (the documents, their problems); holding the documents keeps
# their ids from being reused by other objects while the entry lives.
_VALIDATION_CACHE: dict[tuple[tuple[int, ...], str], tuple[list[dict], list[str]]] = {}


def _describe_check(attributes: dict) -> str:
    keys = ("verb", "apiGroup", "resource", "subresource", "namespace", "name", "path")
    return " ".join(f"{k}={attributes[k]!r}" for k in keys if attributes.get(k) not in (None, ""))


def _relevant_documents(case: TestCase) -> list[dict]:
    """The documents a case evaluates: its policy and the bindings it goes through (else all)."""
    if case.policy is None:
        return case.documents
    bindings = []
    for doc in case.documents:
        spec = doc.get("spec") if isinstance(doc.get("spec"), dict) else {}
        if doc.get("kind") not in BINDING_KINDS or spec.get("policyName") != case.policy:
            continue
        if case.binding is not None and name_of(doc) == case.binding:
            bindings.append(doc)
        elif case.binding is None and case.layout != "policytest":
            bindings.append(doc)  # a policytest case without `binding` evaluates the policy alone
    policies = [
        d for d in case.documents if d.get("kind") in POLICY_KINDS and name_of(d) == case.policy
    ]
    return policies + bindings


def _validation_problems(documents: list[dict], version: str, validation: Any) -> list[str]:
    """API-server validation of the documents a case uses (once per set and version)."""
    key = (tuple(id(d) for d in documents), version)
    cached = _VALIDATION_CACHE.get(key)
    if cached is None or any(a is not b for a, b in zip(cached[0], documents, strict=True)):
        problems = []
        for index, error in validation.validate_documents(documents, version=version):
            doc = documents[index] if 0 <= index < len(documents) else {}
            problems.append(f"{doc.get('kind', 'document')} {name_of(doc)!r}: {error}")
        if len(_VALIDATION_CACHE) > 256:
            _VALIDATION_CACHE.clear()
        _VALIDATION_CACHE[key] = (list(documents), problems)
    return _VALIDATION_CACHE[key][1]


def _cel_only(documents: list[dict], policy: str | None) -> list[dict]:
    """kaptest: the named policy alone, under failurePolicy Fail (kaptest reports errors as such)."""
    result = []
    for doc in documents:
        if doc.get("kind") in POLICY_KINDS and (doc.get("metadata") or {}).get("name") == policy:
            doc = copy.deepcopy(doc)
            spec = doc.setdefault("spec", {})
            spec["failurePolicy"] = "Fail"
            result.append(doc)
        elif doc.get("kind") not in POLICY_KINDS:
            result.append(doc)
    return result
