"""Grading a Kyverno CLI result: the API server's outcome in Kyverno's words, and where Kyverno differs.

A case is graded on what kube-apiserver does, put in the PolicyReport vocabulary the Kyverno CLI
uses: `fail` when a validation failed (whatever validationActions then did with it), `error` when
an expression failed, `skip` when the policy did not apply (constraints, bindings, matchConditions),
`pass` otherwise. Where Kyverno's CLI would report something else, the case carries a note saying
what and why. The differences come from kyverno/kyverno pkg/admissionpolicy validate.go
(Validate, validateResource) and mutate.go (Mutate, mutateResource), which the CLI calls for
VAPs and MAPs without a cluster.
"""

from __future__ import annotations

from typing import Any

from policyeditor.engine.admission.result import EvaluationResult, PolicyOutcome
from policyeditor.engine.jsontypes import object_at
from policyeditor.engine.objects import BINDING_KINDS, MAP, POLICY_OF, name_of
from policyeditor.engine.suites.model import TestCase

NOT_VALIDATED = (
    "Kyverno's CLI does not put admission policies through the API server's validation: "
    "it would evaluate them anyway, where kube-apiserver refuses to store them"
)
NO_BINDING = (
    "no binding of {policy} in the policy files: evaluated as if bound{how}; kube-apiserver never "
    "evaluates a policy without a binding, Kyverno's CLI evaluates it on its matchConstraints alone"
)
FIRST_BINDING = (
    "bindings {bindings} matched: kube-apiserver evaluates every matching binding (the request "
    "fails if one fails), Kyverno's CLI only the first one that matches"
)
ACTIONS = (
    "binding {binding} has validationActions {actions}: kube-apiserver admits the request and only "
    "{what} the failure; Kyverno's CLI ignores validationActions and reports fail as for Deny"
)
IGNORED_ERROR = (
    "failurePolicy Ignore: kube-apiserver admits the request despite the error; Kyverno's CLI "
    "reports error"
)
NO_EFFECT = (
    "the mutations left the object unchanged: kube-apiserver admits it as is (pass); Kyverno's "
    "CLI reports skip (mutation had no effect)"
)
MAP_BINDING_WITHOUT_MATCH = (
    "binding {binding} has no matchResources: kube-apiserver applies it to every request the "
    "policy matches; Kyverno's CLI never evaluates such a binding"
)
POLICY_CONSTRAINTS = (
    "the policy's matchConstraints do not match the request ({reason}), so kube-apiserver skips it; "
    "Kyverno's CLI does not check them when the policy has bindings and evaluates it through any "
    "binding whose matchResources match"
)
PARAMS_PER_OBJECT = (
    "binding {binding}'s paramRef selects {count} param objects ({names}): kube-apiserver "
    "evaluates the policy once per param object"
)


def load_notes(policy: dict[str, Any], documents: list[dict[str, Any]]) -> list[str]:
    """Notes known before evaluation: bindings Kyverno's CLI treats otherwise than the API server."""
    name = name_of(policy)
    bindings = [
        d
        for d in documents
        if d.get("kind") in BINDING_KINDS
        and POLICY_OF.get(str(d.get("kind"))) == policy.get("kind")
        and object_at(d, "spec").get("policyName") == name
    ]
    if not bindings:
        how = "" if policy.get("kind") == MAP else " with validationActions [Deny]"
        return [NO_BINDING.format(policy=name, how=how)]
    notes = []
    if policy.get("kind") == MAP:
        for binding in bindings:
            if object_at(binding, "spec").get("matchResources") is None:
                notes.append(MAP_BINDING_WITHOUT_MATCH.format(binding=name_of(binding)))
    return notes


def grade(
    case: TestCase, outcome: EvaluationResult, input_object: Any
) -> tuple[list[str], list[str]]:
    """(failures, notes): the case's expected result against the API server's, and the departures."""
    mine = [p for p in outcome.policies if p.policy == case.policy]
    is_map = any(p.kind == MAP for p in mine) or _policy_kind(case) == MAP
    unchanged = outcome.object == input_object
    actual = report_result(mine, mutating=is_map)
    failures = []
    expected = case.expect.report_result
    # Kyverno reports `warn` for a failure under a Warn action (its audit-warn option)
    warned = expected == "warn" and actual == "fail" and any(p.result == "warn" for p in mine)
    if expected is not None and actual != expected and not warned:
        why = _why(mine, outcome)
        failures.append(f"expected result {expected}, got {actual}{why}")
    notes = _notes(mine, actual, is_map=is_map, unchanged=unchanged)
    if not is_map and actual == "skip" and _has_bindings(case):
        # validate.go, Validate: with bindings and no cluster, only each binding's matchResources
        # are matched, never the policy's own matchConstraints
        notes += [
            POLICY_CONSTRAINTS.format(reason=p.reason)
            for p in mine
            if p.binding is None and not p.matched and p.reason
        ]
    return failures, notes


def report_result(outcomes: list[PolicyOutcome], *, mutating: bool) -> str:
    """The PolicyReport result of one policy's outcomes (one per binding and param)."""
    results = [p.result for p in outcomes if p.matched]
    if "error" in results:
        return "error"
    if not mutating and any(r in ("deny", "warn", "audit") for r in results):
        return "fail"
    if mutating and "deny" in results:
        return "fail"
    if "allow" in results:
        return "pass"
    return "skip"


def _notes(
    outcomes: list[PolicyOutcome], actual: str, *, is_map: bool, unchanged: bool
) -> list[str]:
    notes = []
    matched = [p for p in outcomes if p.matched and p.binding]
    bindings = list(dict.fromkeys(str(p.binding) for p in matched))
    if len(bindings) > 1:
        notes.append(FIRST_BINDING.format(bindings=", ".join(bindings)))
    for binding in bindings:
        params = list(
            dict.fromkeys(str(p.param) for p in matched if p.binding == binding and p.param)
        )
        if len(params) > 1:
            notes.append(
                PARAMS_PER_OBJECT.format(
                    binding=binding, count=len(params), names=", ".join(params)
                )
            )
    if not is_map:
        for p in matched:
            if p.result in ("warn", "audit") and "Deny" not in p.actions:
                what = "warns about" if p.result == "warn" else "audits"
                notes.append(ACTIONS.format(binding=p.binding, actions=list(p.actions), what=what))
    if actual == "error" and any(
        p.result == "error" and p.failure_policy == "Ignore" for p in outcomes if p.matched
    ):
        notes.append(IGNORED_ERROR)
    if is_map and actual == "pass" and unchanged:
        notes.append(NO_EFFECT)
    return notes


def _has_bindings(case: TestCase) -> bool:
    return any(
        d.get("kind") in BINDING_KINDS and object_at(d, "spec").get("policyName") == case.policy
        for d in case.documents
    )


def _policy_kind(case: TestCase) -> str | None:
    for doc in case.documents:
        if name_of(doc) == case.policy and doc.get("kind") not in BINDING_KINDS:
            return str(doc.get("kind"))
    return None


def _why(outcomes: list[PolicyOutcome], outcome: EvaluationResult) -> str:
    details = [p.reason for p in outcomes if not p.matched and p.reason]
    details += [outcome.message] if outcome.message else []
    details += [e for e in outcome.errors if e not in details]
    details = list(dict.fromkeys(details))
    return f": {'; '.join(details)}" if details else ""
