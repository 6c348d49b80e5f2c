"""The editor's Tests tab: the draft's saved test cases run against the unsaved form state."""

# Saved cases belong to the review app (review.testcases), which builds on the editor and
# registers them in editor.extensions; without it the tab says they are not available.

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Self

from policyeditor.core.engine_gate import EngineLimit, deadline_for, run_engine
from policyeditor.editor import extensions, live
from policyeditor.editor.case_runs import run_suite_files_with_coverage
from policyeditor.editor.models import Draft, Revision
from policyeditor.engine.errors import InputError
from policyeditor.engine.manifests.loading import load_documents

MAX_NAME = 200


@dataclass
class CaseRun:
    """One saved case's outcome on a revision or on the current form state."""

    name: str
    passed: bool
    result: str | None = None
    message: str = ""
    failures: list[str] = field(default_factory=list)
    # What actually happened when the case passed vacuously (engine/suites/vacuous.py).
    vacuous: str = ""

    @classmethod
    def from_run(cls, item: dict[str, Any], **more: Any) -> Self:
        """From one dict of case_runs.run_suite_files."""
        fields = {key: item[key] for key in ("name", "passed", "result", "message", "failures")}
        return cls(**fields, vacuous=item.get("vacuous", ""), **more)


@dataclass
class CaseResult(CaseRun):
    """One saved case on the current form state, with the case's summary."""

    summary: str = ""


@dataclass
class CoverageRow:
    """One expression of a policy: its outcomes over all cases, and per binding (column order)."""

    item: str
    label: str
    outcomes: str
    per_binding: list[str]


@dataclass
class PolicyCoverage:
    """A policy's coverage as the Tests tab shows it (engine/suites/coverage.py's JSON form)."""

    kind: str
    policy: str
    percent: float
    evaluated: int
    total: int
    bindings: list[str]
    rows: list[CoverageRow]
    not_exercised: list[str]


def _outcome_text(outcomes: dict[str, int]) -> str:
    return ", ".join(f"{name} {count}" for name, count in outcomes.items())


def coverage_view(data: dict[str, Any]) -> list[PolicyCoverage]:
    """The coverage report's policies, laid out as one table each (rows: expressions)."""
    shown = []
    for policy in data.get("policies", []):
        bindings = policy["bindings"]
        cells = [{item["id"]: item["outcomes"] for item in b["items"]} for b in bindings]
        rows = [
            CoverageRow(
                item=item["id"],
                label=item["label"],
                outcomes=_outcome_text(item["outcomes"]),
                per_binding=[_outcome_text(cell.get(item["id"], {})) for cell in cells],
            )
            for item in policy["items"]
        ]
        shown.append(
            PolicyCoverage(
                kind=policy["kind"],
                policy=policy["policy"],
                percent=policy["percent"],
                evaluated=policy["evaluated"],
                total=policy["total"],
                bindings=[b["binding"] or "(no binding)" for b in bindings],
                rows=rows,
                not_exercised=list(policy["notExercised"]),
            )
        )
    return shown


@dataclass
class TestsOutcome:
    """What the Tests tab shows: every case's result, or why none could run."""

    __test__ = False

    runs: list[CaseResult] = field(default_factory=list)
    problem: str = ""
    available: bool = True
    coverage: list[PolicyCoverage] = field(default_factory=list)

    @property
    def vacuous(self) -> int:
        """How many cases passed vacuously."""
        return sum(1 for run in self.runs if run.passed and run.vacuous)

    # (label, url) of the zip downloads of the saved cases, one per export layout.
    exports: list[tuple[str, str]] = field(default_factory=list)

    @property
    def passed(self) -> int:
        """How many cases pass."""
        return sum(1 for run in self.runs if run.passed)

    @property
    def label(self) -> str:
        """The tab's label: "Tests 4/4", "Tests" when there are none."""
        if self.problem and not self.runs:
            return "Tests !"
        return f"Tests {self.passed}/{len(self.runs)}" if self.runs else "Tests"


def saved_cases(draft: Draft) -> list[Any]:
    """The draft's saved test cases (SavedTestCase rows), oldest first."""
    hooks = extensions.saved_cases()
    return [] if hooks is None else hooks.saved(draft)


def run_current(draft: Draft, documents: list[dict], version: str) -> TestsOutcome:
    """Run the saved cases against `documents` (the form as it is now) in the isolation pool."""
    testcases = extensions.saved_cases()
    if testcases is None:
        return TestsOutcome(available=False, problem="Saved test cases need the review app.")
    saved = saved_cases(draft)
    if not saved:
        return TestsOutcome()
    cases = [row.case for row in saved]
    summaries = {row.name: testcases.summary(row.case) for row in saved}
    # An unsaved revision: the bundle is written exactly as for a saved one.
    current = Revision(draft=draft, documents=documents, kubernetes_version=version)
    try:
        files = testcases.bundle_files(current, cases, name=bundle_slug(draft.name))
        raw = run_engine(
            run_suite_files_with_coverage, files, timeout=deadline_for(documents + cases)
        )
    except EngineLimit as exc:
        return TestsOutcome(problem=exc.message)
    except InputError as exc:
        return TestsOutcome(problem=str(exc))
    runs = [
        CaseResult.from_run(item, summary=summaries.get(item["name"], "")) for item in raw["runs"]
    ]
    links = testcases.export_links(draft) if testcases.export_links is not None else []
    return TestsOutcome(runs=runs, coverage=coverage_view(raw["coverage"]), exports=links)


def bundle_slug(name: str) -> str:
    """A draft's name as a file-name part of its test bundle."""
    safe = "".join(c if c.isalnum() or c in "-_" else "-" for c in name.lower()).strip("-")
    return safe or "draft"


def _object(text: str, label: str) -> Any:
    """The one object in a Try-it text area (None when blank); ValueError with the reason."""
    if not text.strip():
        return None
    try:
        docs = load_documents(text, source=label)
    except InputError as exc:
        raise ValueError(str(exc)) from None
    if len(docs) != 1:
        raise ValueError(f"{label}: expected exactly one object, found {len(docs)}")
    return docs[0]


def _deciding_binding(result: dict) -> dict | None:
    """The Try-it policy entry whose binding gave the overall outcome (None without bindings)."""
    entries = [e for e in result.get("policies") or [] if e.get("binding")]
    outcome = result.get("result")
    for wanted in (
        lambda e: e.get("matched") and e.get("result") == outcome,
        lambda e: e.get("matched"),
        lambda e: True,
    ):
        found = next((e for e in entries if wanted(e)), None)
        if found is not None:
            return found
    return None


def case_from_try(name: str, inputs: live.TryInputs, result: dict, *, mutating: bool) -> dict:
    """A PolicyTest case from the Try-it inputs, expecting the outcome they gave."""
    name = re.sub(r"\s+", " ", name or "").strip()[:MAX_NAME]
    if not name:
        raise ValueError("Give the test case a name.")
    case: dict[str, Any] = {"name": name}
    for key, label, text in (
        ("object", "object", inputs.object),
        ("oldObject", "oldObject", inputs.old_object),
        ("params", "params", inputs.params),
        ("namespaceObject", "namespaceObject", inputs.namespace_object),
    ):
        value = _object(text, label)
        if value is not None:
            case[key] = value
    if inputs.operation:
        case["operation"] = inputs.operation
    groups = [g.strip() for g in inputs.groups.split(",") if g.strip()]
    if inputs.username.strip() or groups:
        case["userInfo"] = {"username": inputs.username.strip(), "groups": groups}
    request: dict[str, Any] = {}
    if inputs.sub_resource.strip():
        request["subResource"] = inputs.sub_resource.strip()
    if inputs.dry_run:
        request["dryRun"] = True
    if request:
        case["request"] = request
    if not inputs.defaulting:
        case["defaulting"] = False
    if inputs.authorizer.strip():
        try:
            entries = load_documents(inputs.authorizer, source="authorizer")
        except InputError as exc:
            raise ValueError(str(exc)) from None
        single = len(entries) == 1 and isinstance(entries[0], list)
        case["authorizer"] = entries[0] if single else entries
    through = _deciding_binding(result)
    if through is not None:
        # A suite case without `binding` evaluates the policy alone (no paramRef, no
        # matchResources); Try it went through the draft's bindings, so the case names the one
        # that gave the outcome, and expects that binding's own message.
        case["policy"] = through["policy"]
        case["binding"] = through["binding"]
    expect: dict[str, Any] = {"result": result.get("result")}
    message = (through or {}).get("message") or result.get("message")
    if result.get("result") in ("deny", "warn", "audit") and message:
        expect["messages"] = [message]
    if result.get("warnings"):
        expect["warnings"] = list(result["warnings"])
    if result.get("auditAnnotations"):
        expect["auditAnnotations"] = dict(result["auditAnnotations"])
    if mutating and isinstance(result.get("object"), dict):
        expect["object"] = result["object"]
    case["expect"] = expect
    return case
