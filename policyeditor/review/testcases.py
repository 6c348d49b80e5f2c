"""Saved test cases of a draft: store, run per revision through the `policyeditor test` runner, compare.

A run writes the revision and its cases as the very bundle that export produces (policy.yaml plus a
`*.policytest.yaml`) and runs it with `engine.suites.run`, so the web and the CLI cannot disagree.
Results are cached by content (documents, version, cases).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from django.core.cache import cache
from django.db import IntegrityError, transaction

from policyeditor.editor.cases import CaseRun, bundle_slug
from policyeditor.editor.models import Draft, Revision
from policyeditor.engine.errors import InputError
from policyeditor.engine.manifests.loading import dump_documents, load_documents
from policyeditor.review import audit
from policyeditor.review.models import Action, SavedTestCase
from policyeditor.review.permissions import can_edit
from policyeditor.review.workflow import NotAllowed, WorkflowError

SUITE_API_VERSION = "policyeditor.dev/v1"
POLICY_FILE = "policy.yaml"
# What a result means for the object under test, for sentences like "now denies 2 objects".
VERB = {"allow": "allows", "deny": "denies", "warn": "warns about", "audit": "audits"}
VERB |= {"skip": "skips", "error": "fails on"}


@dataclass
class Change:
    """A case whose result differs between the baseline and this revision."""

    name: str
    before: str | None
    after: str | None


@dataclass
class TestReport:
    """All cases on a revision, and what changed against a baseline (by default the approved one)."""

    __test__ = False

    runs: list[CaseRun]
    baseline_number: int | None = None
    changes: list[Change] = field(default_factory=list)

    @property
    def passed(self) -> int:
        """How many cases pass."""
        return sum(1 for run in self.runs if run.passed)

    @property
    def failed(self) -> int:
        """How many cases fail."""
        return len(self.runs) - self.passed

    @property
    def sentences(self) -> list[str]:
        """ "This change now denies 2 objects that were allowed", one per kind of change."""
        groups: dict[tuple[str | None, str | None], int] = {}
        for change in self.changes:
            key = (change.before, change.after)
            groups[key] = groups.get(key, 0) + 1
        lines = []
        for (before, after), count in groups.items():
            noun = "object" if count == 1 else "objects"
            was = _past(before, count)
            lines.append(f"This change now {VERB.get(after or '', after)} {count} {noun} {was}.")
        return lines


def _past(result: str | None, count: int) -> str:
    words = {"allow": "allowed", "deny": "denied", "warn": "warned about", "audit": "audited"}
    words |= {"skip": "skipped", "error": "failing"}
    if result is None:
        return "that had no result"
    verb = "was" if count == 1 else "were"
    return f"that {verb} {words.get(result, result)}"


def parse_case(text: str) -> dict:
    """One case mapping from YAML/JSON text; WorkflowError if it is not one named mapping."""
    try:
        docs = load_documents(text, source="test case")
    except InputError as error:
        raise WorkflowError(str(error)) from None
    if len(docs) != 1:
        raise WorkflowError(f"A test case is one YAML mapping; found {len(docs)} documents.")
    case = docs[0]
    if not isinstance(case.get("name"), str) or not case["name"].strip():
        raise WorkflowError("A test case needs a name.")
    if not isinstance(case.get("expect"), dict) or not case["expect"]:
        raise WorkflowError("A test case needs `expect` (result, messages, ...).")
    return case


def save_case(user, draft: Draft, case: dict) -> SavedTestCase:
    """Add a case or replace the one with the same name."""
    if not can_edit(user, draft):
        raise NotAllowed("Only authors of this draft manage its test cases.")
    name = case["name"].strip()[:200]
    try:
        with transaction.atomic():
            saved, created = SavedTestCase.objects.update_or_create(
                draft=draft, name=name, defaults={"case": case, "created_by": user}
            )
    except IntegrityError as error:  # pragma: no cover - a concurrent insert of the same name
        raise WorkflowError(f"A test case named {name!r} was just added.") from error
    verb = "added" if created else "updated"
    audit.record(Action.TESTS_CHANGED, actor=user, draft=draft, detail={verb: name})
    return saved


def delete_case(user, saved: SavedTestCase) -> None:
    """Remove one saved case."""
    if not can_edit(user, saved.draft):
        raise NotAllowed("Only authors of this draft manage its test cases.")
    name, draft = saved.name, saved.draft
    saved.delete()
    audit.record(Action.TESTS_CHANGED, actor=user, draft=draft, detail={"deleted": name})


def suite_document(revision: Revision, cases: list[dict], *, name: str) -> dict:
    """The PolicyTest mapping for `cases` against the revision's documents in POLICY_FILE."""
    return {
        "apiVersion": SUITE_API_VERSION,
        "kind": "PolicyTest",
        "metadata": {"name": name},
        "policies": [POLICY_FILE],
        "kubernetesVersion": revision.kubernetes_version,
        "cases": cases,
    }


def bundle_files(revision: Revision, cases: list[dict], *, name: str) -> dict[str, str]:
    """File name -> text of a runnable bundle: the policy documents and the suite."""
    suite = suite_document(revision, cases, name=name)
    return {
        POLICY_FILE: dump_documents(revision.documents),
        f"{name}.policytest.yaml": dump_documents([suite]),
    }


def run_cases(revision: Revision, cases: list[dict], *, name: str = "draft") -> list[CaseRun]:
    """Run cases against a revision with the CLI's runner; cached, never raises."""
    if not cases:
        return []
    # Keyed by content, not by id: the same inputs always give the same results.
    inputs = [revision.documents, revision.kubernetes_version, cases, name]
    digest = hashlib.sha256(json.dumps(inputs, sort_keys=True, default=str).encode()).hexdigest()
    key = f"review:tests:{digest}"
    cached = cache.get(key)
    if cached is not None:
        return cached
    runs = _run(revision, cases, bundle_slug(name))
    cache.set(key, runs, 3600)
    return runs


def _run(revision: Revision, cases: list[dict], name: str) -> list[CaseRun]:
    # The same isolated runner as the editor's Tests tab: user CEL never runs in the web process.
    from policyeditor.core.engine_gate import EngineLimit, deadline_for, run_engine
    from policyeditor.editor.case_runs import run_suite_files

    files = bundle_files(revision, cases, name=name)
    try:
        raw = run_engine(run_suite_files, files, timeout=deadline_for(revision.documents + cases))
    except (EngineLimit, InputError) as error:
        return [CaseRun(c.get("name", "?"), False, failures=[str(error)]) for c in cases]
    return [CaseRun.from_run(item) for item in raw]


def report_for(draft: Draft, revision: Revision, *, baseline: Revision | None) -> TestReport:
    """The saved cases run on `revision`, with changed results against `baseline`."""
    cases = [saved.case for saved in draft.saved_test_cases.all()]
    runs = run_cases(revision, cases, name=draft.name)
    report = TestReport(runs)
    if baseline is not None and baseline.pk != revision.pk and cases:
        before = {run.name: run.result for run in run_cases(baseline, cases, name=draft.name)}
        report.baseline_number = baseline.number
        report.changes = [
            Change(run.name, before.get(run.name), run.result)
            for run in runs
            if run.name in before and before[run.name] != run.result
        ]
    return report


def case_summary(case: dict[str, Any]) -> str:
    """A one-line description of a case: operation, object kind/name, expected result."""
    obj = case.get("object") or case.get("oldObject") or {}
    kind = obj.get("kind", "") if isinstance(obj, dict) else ""
    meta = obj.get("metadata") if isinstance(obj, dict) else None
    name = meta.get("name", "") if isinstance(meta, dict) else ""
    expect = case.get("expect") or {}
    result = expect.get("result", "?") if isinstance(expect, dict) else "?"
    operation = case.get("operation") or ("UPDATE" if case.get("oldObject") else "CREATE")
    return f"{operation} {kind} {name} → expect {result}".replace("  ", " ")
