"""Coverage of a suite: which expressions of each policy its cases evaluated, and with what outcome.

The trace of a case is read from the steps the evaluation itself recorded (admission/result.py
Step, written by validating/policy.py and mutating/policy.py as they run), so it shows what the API
server evaluates rather than a re-derivation: every matchCondition is evaluated (kubernetes/
kubernetes staging/src/k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions/matcher.go,
matcher.Match, runs filter.ForInput over all of them, then decides), nothing after a false or
failed matchCondition is, variables are lazy (an unused one has no outcome), every
messageExpression runs in the second pass of validating/validator.go (validator.Validate), and
what a cost-budget error cut off has no step at all. A trace is a tuple of strings and
counts: cheap to build, to pickle back from a worker process (suites/pool.py) and to merge.

Policies are identified across suites by kind, name and expressions (two different policies of
one name, in two suites, are two entries); an expression by its place in the policy
(`validations[0]`, `validations[0].messageExpression`, ...).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from policyeditor.engine.admission.result import EvaluationResult, PolicyOutcome, Step
from policyeditor.engine.objects import BINDING_KINDS, POLICY_KINDS, POLICY_OF, name_of, spec_of

# Outcome names per step status (admission/result.py Step): what the report counts.
_OUTCOMES = {
    "matchCondition": {"true": "true", "false": "false", "error": "error"},
    "variable": {"ok": "evaluated", "error": "error"},
    "validation": {"pass": "true", "fail": "false", "error": "error"},
    "auditAnnotation": {"ok": "published", "excluded": "excluded", "error": "error"},
    "mutation": {"applied": "applied", "unchanged": "unchanged", "error": "error"},
}
_GROUPS = {
    "matchCondition": "matchConditions",
    "variable": "variables",
    "validation": "validations",
    "auditAnnotation": "auditAnnotations",
    "mutation": "mutations",
}
MESSAGE_EXPRESSION = ".messageExpression"
_LABEL_WIDTH = 70


@dataclass(frozen=True)
class PolicyItems:
    """The expressions of one policy document, in order: (item id, label), and its bindings."""

    kind: str
    policy: str
    items: tuple[tuple[str, str], ...]
    bindings: tuple[str, ...]


# One evaluation of a (policy, binding, param): kind, policy, binding ("" when evaluated alone, or
# for the policy's own matchConstraints), whether it matched, and (item id, outcome) per
# evaluated step (none when a configuration error or a missing param object stopped it first).
TraceEntry = tuple[str, str, str, bool, tuple[tuple[str, str], ...]]


@dataclass(frozen=True)
class CaseTrace:
    """What one case evaluated: the policies it could have evaluated and each evaluation's steps."""

    policies: tuple[PolicyItems, ...]
    entries: tuple[TraceEntry, ...]


def _label(text: str) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= _LABEL_WIDTH else flat[: _LABEL_WIDTH - 3] + "..."


def _named(entry: Any, key: str) -> str:
    return str(entry.get(key) or "") if isinstance(entry, dict) else ""


def policy_items(policy: dict[str, Any], documents: Iterable[dict[str, Any]]) -> PolicyItems:
    """The expressions of a VAP or MAP document, and the names of the bindings of it in `documents`."""
    spec = spec_of(policy)
    kind, name = str(policy.get("kind")), name_of(policy)
    items: list[tuple[str, str]] = []

    def listed(key: str) -> list[Any]:
        value = spec.get(key)
        return value if isinstance(value, list) else []

    for index, entry in enumerate(listed("matchConditions")):
        items.append((f"matchConditions[{index}]", _named(entry, "name")))
    for index, entry in enumerate(listed("variables")):
        items.append((f"variables[{index}]", _named(entry, "name")))
    for index, entry in enumerate(listed("validations")):
        items.append((f"validations[{index}]", _label(_named(entry, "expression"))))
        if _named(entry, "messageExpression").strip():
            message = _label(_named(entry, "messageExpression"))
            items.append((f"validations[{index}]{MESSAGE_EXPRESSION}", message))
    for index, entry in enumerate(listed("auditAnnotations")):
        items.append((f"auditAnnotations[{index}]", _named(entry, "key")))
    for index, entry in enumerate(listed("mutations")):
        expression = entry.get("jsonPatch") or entry.get("applyConfiguration") or {}
        items.append((f"mutations[{index}]", _label(_named(expression, "expression"))))
    bindings = tuple(
        name_of(doc)
        for doc in documents
        if doc.get("kind") in BINDING_KINDS
        and POLICY_OF.get(str(doc.get("kind"))) == kind
        and spec_of(doc).get("policyName") == name
    )
    return PolicyItems(kind, name, tuple(items), bindings)


# (ids of the documents) -> (the documents, their PolicyItems): one set per suite, so a worker's
# results share (and pickle once) the same objects; holding the documents keeps their ids unique.
_ITEMS_CACHE: dict[tuple[int, ...], tuple[list[dict[str, Any]], tuple[PolicyItems, ...]]] = {}


def documents_items(documents: list[dict[str, Any]]) -> tuple[PolicyItems, ...]:
    """policy_items of every policy in `documents`, made once per document set."""
    key = tuple(id(d) for d in documents)
    cached = _ITEMS_CACHE.get(key)
    if cached is not None and all(a is b for a, b in zip(cached[0], documents, strict=True)):
        return cached[1]
    found = tuple(
        policy_items(doc, documents)
        for doc in documents
        if isinstance(doc, dict) and doc.get("kind") in POLICY_KINDS
    )
    if len(_ITEMS_CACHE) > 256:
        _ITEMS_CACHE.clear()
    _ITEMS_CACHE[key] = (list(documents), found)
    return found


def _step_outcomes(step: Step) -> list[tuple[str, str]]:
    group = _GROUPS.get(step.kind)
    outcome = _OUTCOMES.get(step.kind, {}).get(step.status)
    found = []
    if group is not None and outcome is not None:
        found.append((f"{group}[{step.index}]", outcome))
    if step.kind == "validation" and step.message_expression:
        # The messageExpression pass (validator.go) leaves a value or an error on the step; a
        # pass cut off by the budget before this one leaves neither: not evaluated.
        item = f"validations[{step.index}]{MESSAGE_EXPRESSION}"
        if step.message_expression_error:
            found.append((item, "error"))
        elif step.message_expression_value is not None:
            found.append((item, "evaluated"))
    return found


def _entry(outcome: PolicyOutcome) -> TraceEntry:
    steps: list[tuple[str, str]] = []
    for group in (
        outcome.match_conditions,
        outcome.variables,
        outcome.validations,
        outcome.audit_annotations,
        outcome.mutations,
    ):
        for step in group:
            steps.extend(_step_outcomes(step))
    return (outcome.kind, outcome.policy, outcome.binding or "", outcome.matched, tuple(steps))


def trace(documents: list[dict[str, Any]], result: EvaluationResult) -> CaseTrace:
    """The trace of one evaluation of `documents` (the case's policies and bindings)."""
    return CaseTrace(documents_items(documents), tuple(_entry(o) for o in result.policies))


@dataclass
class BindingCoverage:
    """One binding's evaluations ("" for the policy evaluated alone) and each item's outcomes."""

    evaluations: int = 0
    not_matched: int = 0
    # Matched, but stopped before any expression: a configuration error, no param object.
    no_expression: int = 0
    # A case's steps -> how many evaluations gave exactly these: one lookup per evaluation (most
    # cases of a suite repeat a few patterns), expanded per item only when a report is written.
    patterns: Counter[tuple[tuple[str, str], ...]] = field(default_factory=Counter)

    @property
    def outcomes(self) -> dict[str, dict[str, int]]:
        """item id -> outcome -> how often, in the order first met."""
        found: dict[str, dict[str, int]] = {}
        for steps, count in self.patterns.items():
            for item, outcome in steps:
                counts = found.setdefault(item, {})
                counts[outcome] = counts.get(outcome, 0) + count
        return found


@dataclass
class PolicyCoverage:
    """One policy's expressions and what the suite's cases made of them, per binding."""

    kind: str
    policy: str
    suite: str = ""  # the suite of the first case that had it
    items: dict[str, str] = field(default_factory=dict)  # item id -> label, in policy order
    # Requests the policy's own matchConstraints left out (or a miss with no binding to name).
    not_matched: int = 0
    bindings: dict[str, BindingCoverage] = field(default_factory=dict)

    def outcomes(self, item: str) -> dict[str, int]:
        """An item's outcomes over every binding."""
        total: dict[str, int] = {}
        for binding in self.bindings.values():
            for outcome, count in binding.outcomes.get(item, {}).items():
                total[outcome] = total.get(outcome, 0) + count
        return total

    @property
    def exercised(self) -> list[str]:
        """Items some case evaluated (whatever the outcome)."""
        return [item for item in self.items if self.outcomes(item)]

    @property
    def not_exercised(self) -> list[str]:
        """Items no case evaluated."""
        return [item for item in self.items if not self.outcomes(item)]

    @property
    def percent(self) -> float:
        """Share of the items some case evaluated (100 for a policy without expressions)."""
        if not self.items:
            return 100.0
        return round(100.0 * len(self.exercised) / len(self.items), 1)

    def to_dict(self) -> dict[str, Any]:
        """JSON form (docs/policytest.md, "Coverage")."""
        return {
            "kind": self.kind,
            "policy": self.policy,
            "evaluated": len(self.exercised),
            "total": len(self.items),
            "percent": self.percent,
            "suite": self.suite,
            "notMatched": self.not_matched,
            "items": [
                {"id": item, "label": label, "outcomes": self.outcomes(item)}
                for item, label in self.items.items()
            ],
            "bindings": [
                {
                    "binding": name or None,
                    "evaluations": binding.evaluations,
                    "notMatched": binding.not_matched,
                    "noExpression": binding.no_expression,
                    "items": [
                        {"id": item, "outcomes": outcomes[item]}
                        for item in self.items
                        if item in outcomes
                    ],
                }
                for name, binding, outcomes in (
                    (name, binding, binding.outcomes) for name, binding in self.bindings.items()
                )
            ],
            "notExercised": self.not_exercised,
        }


@dataclass
class Coverage:
    """The coverage of a run: every policy its cases could evaluate, in the order first met."""

    policies: dict[tuple[str, str, tuple[tuple[str, str], ...]], PolicyCoverage] = field(
        default_factory=dict
    )
    # id(PolicyItems) -> (it, its entry): the cases of one suite share their PolicyItems objects
    # (documents_items), so each is looked up by content once, not once per case.
    _known: dict[int, tuple[PolicyItems, PolicyCoverage]] = field(
        default_factory=dict, repr=False, compare=False
    )

    def add(self, case_trace: CaseTrace, suite: str = "") -> None:
        """Count one case's trace in (`suite`: the case's suite, to tell same-named policies apart)."""
        mine: dict[tuple[str, str], PolicyCoverage] = {}
        for items in case_trace.policies:
            known = self._known.get(id(items))
            if known is not None and known[0] is items:
                mine[(items.kind, items.policy)] = known[1]
                continue
            policy = self._policy(items.kind, items.policy, items.items, suite)
            self._known[id(items)] = (items, policy)
            mine[(items.kind, items.policy)] = policy
            for binding in items.bindings:
                policy.bindings.setdefault(binding, BindingCoverage())
        for kind, name, binding, matched, steps in case_trace.entries:
            policy = mine.get((kind, name)) or self._policy(kind, name, (), suite)
            if not matched and not binding:
                policy.not_matched += 1
                continue
            record = policy.bindings.setdefault(binding, BindingCoverage())
            if not matched:
                record.not_matched += 1
                continue
            if not steps:
                record.no_expression += 1
                continue
            record.evaluations += 1
            record.patterns[steps] += 1

    def _policy(
        self, kind: str, name: str, items: tuple[tuple[str, str], ...], suite: str
    ) -> PolicyCoverage:
        key = (kind, name, items)
        if key not in self.policies:
            self.policies[key] = PolicyCoverage(kind, name, suite, dict(items))
        return self.policies[key]

    def to_dict(self) -> dict[str, Any]:
        """JSON form: {"policies": [...]}."""
        return {"policies": [p.to_dict() for p in self.policies.values()]}

    def to_lines(self) -> list[str]:
        """The text report, a block per policy."""
        lines = ["coverage:"]
        if not self.policies:
            lines.append("  no policies were evaluated")
        names = Counter((p.kind, p.policy) for p in self.policies.values())
        for policy in self.policies.values():
            covered, total = len(policy.exercised), len(policy.items)
            # Same-named policies of different suites are told apart by their suite.
            where = f" in {policy.suite}" if names[(policy.kind, policy.policy)] > 1 else ""
            lines.append(
                f"  {policy.kind} {policy.policy!r}{where}: {covered}/{total} expressions"
                f" evaluated ({policy.percent:g}%)"
            )
            if policy.not_matched:
                lines.append(f"    not matched (matchConstraints): {policy.not_matched}")
            for name, binding in policy.bindings.items():
                head = f"binding {name!r}" if name else "evaluated alone (no binding)"
                summary = f"{binding.evaluations} evaluated, {binding.not_matched} not matched"
                if binding.no_expression:
                    summary += f", {binding.no_expression} stopped before any expression"
                lines.append(f"    {head}: {summary}")
                outcomes = binding.outcomes
                for item, label in policy.items.items():
                    counts = outcomes.get(item)
                    if counts:
                        text = ", ".join(f"{o} {n}" for o, n in counts.items())
                        lines.append(f"      {_item_text(item, label)}: {text}")
            missing = policy.not_exercised
            if missing:
                lines.append("    not evaluated by any case:")
                lines.extend(f"      {_item_text(i, policy.items[i])}" for i in missing)
        return lines


def _item_text(item: str, label: str) -> str:
    return f"{item} {label}" if label else item


def merge(traces: Iterable[tuple[CaseTrace | None, str]]) -> Coverage:
    """The coverage of many cases' (trace, suite) (a None trace: a case that was not evaluated)."""
    coverage = Coverage()
    for case_trace, suite in traces:
        if case_trace is not None:
            coverage.add(case_trace, suite)
    return coverage
