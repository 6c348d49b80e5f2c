"""The common model every test-suite layout loads into: one TestCase per case, one Expectation each."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

LAYOUT_POLICYTEST = "policytest"
LAYOUT_KAT = "kat"
LAYOUT_KAPTEST = "kaptest"
LAYOUT_KYVERNO = "kyverno"

RESULTS = ("allow", "deny", "warn", "audit", "skip", "error")


class _Unset:
    """Marks a field the suite did not give (distinct from an explicit null)."""

    _instance: _Unset | None = None

    def __new__(cls) -> _Unset:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNSET"

    def __bool__(self) -> bool:
        return False


UNSET: Any = _Unset()


class SuiteError(Exception):
    """A suite that cannot be read or is malformed; `source` names the file or directory."""

    def __init__(self, source: str, message: str) -> None:
        self.source = source
        self.message = message
        super().__init__(f"{source}: {message}")

    def __reduce__(self) -> tuple[type[SuiteError], tuple[str, str]]:
        # Pickled by its two fields (a worker of suites.pool sends it back), not by its text.
        return SuiteError, (self.source, self.message)


@dataclass
class Expectation:
    """What a case expects; every field left as None/UNSET is not checked."""

    # One of RESULTS, compared with EvaluationResult.result (kaptest: admit=allow, mutate=allow).
    result: str | None = None
    allowed: bool | None = None
    # Substrings that must each appear in the denial message or one of the warnings.
    messages: list[str] = field(default_factory=list)
    # kat `.message.txt` / kaptest deniedMessage: the denial message, compared exactly.
    message_exact: str | None = None
    # Warnings: `warnings_exact` compares the list one by one (kat), else each is a substring.
    warnings: list[str] | None = None
    warnings_exact: bool = False
    # Audit annotations keyed as the policy writes them (or with a full "<policy>/<key>" key).
    audit_annotations: dict[str, str] | None = None
    # kat filters actual annotations to the expected keys; ours compares the exact set.
    audit_annotations_subset: bool = False
    # The object after all mutations (UNSET: not checked).
    object: Any = UNSET
    # kat: a mutation without a golden file is a failure.
    forbid_mutation: bool = False
    # Kyverno CLI: the PolicyReport result (pass, fail, warn, error, skip) the case's policy must
    # report, graded by formats/kyverno_results.py.
    report_result: str | None = None


@dataclass
class TestCase:
    """One test case, whatever layout it came from, ready to run through admission.evaluate."""

    __test__ = False  # not a pytest test class despite the name

    name: str
    suite: str  # the suite's display name (file or directory)
    source: str  # the file the case is defined in (for messages)
    layout: str
    documents: list[dict[str, Any]] = field(default_factory=list)  # policies and bindings
    resources: list[dict[str, Any]] = field(default_factory=list)  # param objects, namespaces, ...
    version: str | None = None
    policy: str | None = None
    binding: str | None = None
    operation: str | None = None
    object: dict[str, Any] | None = None
    old_object: dict[str, Any] | None = None
    params: Any = UNSET
    namespace_object: Any = UNSET
    user_info: dict[str, Any] | None = None
    request: dict[str, Any] = field(default_factory=dict)  # AdmissionRequest overrides in camelCase
    authorizer: list[dict[str, Any]] | None = None
    expect: Expectation = field(default_factory=Expectation)
    # The suite's CustomResourceDefinitions (a schemas.CrdRegistry), layered over the built-in
    # schemas while the case runs; None when the suite names none.
    crds: Any = None
    # kaptest evaluates CEL only: matchConstraints and failurePolicy do not take part.
    cel_only: bool = False
    # The API server's defaulting of object, oldObject and each mutation's result (engine/defaulting);
    # a suite or case turns it off with `defaulting: false`.
    defaulting: bool = True
    # Set when the case itself is malformed: it fails with this message and is not evaluated.
    error: str | None = None
    # Where the suite's tool would report something else than the API server (Kyverno CLI):
    # printed under the case, never a failure on their own.
    notes: list[str] = field(default_factory=list)

    @property
    def full_name(self) -> str:
        """`<suite>/<case>`, the name `-run` matches against."""
        return f"{self.suite}/{self.name}"


@dataclass(frozen=True)
class SuiteFile:
    """What the cases of one suite file share: its name, layout, documents and version."""

    suite: str
    layout: str
    documents: list[dict[str, Any]] = field(default_factory=list)
    resources: list[dict[str, Any]] = field(default_factory=list)
    version: str | None = None

    def new_case(self, name: str, **fields: Any) -> TestCase:
        """A case of this file named `name`; `fields` set the others the layout fixes."""
        return TestCase(
            name=name,
            suite=self.suite,
            source=self.suite,
            layout=self.layout,
            documents=self.documents,
            resources=self.resources,
            version=self.version,
            **fields,
        )


@dataclass
class CaseResult:
    """The outcome of one case: passed or not, and each reason it failed."""

    case: TestCase
    passed: bool
    failures: list[str] = field(default_factory=list)
    # When it was evaluated: EvaluationResult.to_dict()'s response fields (result, allowed,
    # statusCode, reason, message, warnings, auditAnnotations, errors, causes), not its steps.
    outcome: dict[str, Any] | None = None
    # What happened when the case passed vacuously (suites/vacuous.py), else "".
    vacuous: str = ""
    # With coverage on, what the case evaluated (suites/coverage.py CaseTrace), else None.
    trace: Any = None
    # The case's notes plus those its outcome adds (TestCase.notes).
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON form for `policyeditor test -o json`."""
        data: dict[str, Any] = {
            "suite": self.case.suite,
            "name": self.case.name,
            "layout": self.case.layout,
            "source": self.case.source,
            "passed": self.passed,
            "failures": list(self.failures),
            "notes": list(self.notes),
        }
        if self.outcome is not None:
            data["result"] = self.outcome.get("result")
            data["allowed"] = self.outcome.get("allowed")
            data["message"] = self.outcome.get("message")
            data["warnings"] = self.outcome.get("warnings", [])
            data["auditAnnotations"] = self.outcome.get("auditAnnotations", {})
        data["vacuous"] = self.vacuous or None
        return data
