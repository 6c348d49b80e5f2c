"""Vacuous passes: a case that passed for the wrong reason, and what actually happened.

A case expecting the request to be allowed passes vacuously when no policy took part in the answer
(no policy or no binding matched, matchConditions left it out, no param object was selected, or
the only evaluations failed under failurePolicy Ignore); a case expecting a denial passes
vacuously when the denial came from an evaluation error (failurePolicy Fail) rather than a
failed validation. Each format keeps its own meaning: only expectations that accept such an
answer can pass vacuously (kat's `allow`/`deny` tokens, `allowed:`, kaptest's `mutate`); one
that names `skip` or `error`, or a deny that checks the error's text, asked for it.
"""

from __future__ import annotations

from policyeditor.engine.admission.result import EvaluationResult, PolicyOutcome
from policyeditor.engine.suites.model import Expectation

STRICT_FAILURE = "passed vacuously ({reason}); --strict fails such a case"


def vacuous_reason(expect: Expectation, outcome: EvaluationResult) -> str:
    """What happened when a passing case passed vacuously ("" when it did not)."""
    if expect.result in ("skip", "error"):
        return ""
    if outcome.allowed and (expect.allowed is True or expect.result == "allow"):
        return _allowed_without_a_policy(outcome.policies)
    expects_denial = expect.allowed is False or expect.result == "deny"
    if expects_denial and not outcome.allowed and outcome.result == "error":
        if expect.messages or expect.message_exact is not None:
            return ""  # the case checks the error's own text: it asked for this error
        return f"denied by an error: {outcome.message}"
    return ""


def _allowed_without_a_policy(outcomes: list[PolicyOutcome]) -> str:
    took_part = [o for o in outcomes if o.matched and o.result != "skip"]
    if not outcomes:
        return "allowed: no policy to evaluate"
    failed = [o for o in took_part if o.result == "error"]
    if len(failed) < len(took_part):
        return ""  # some evaluation decided (allowed, warned, audited or mutated)
    if failed:
        error = next((e for o in failed for e in o.errors), failed[0].reason)
        return f"allowed: an evaluation error was ignored (failurePolicy Ignore): {error}"
    skipped = [o for o in outcomes if o.matched]
    if skipped:
        first = skipped[0]
        why = first.reason or "not evaluated"
        return f"allowed: {_who(first)} was not evaluated: {why}"
    if any(o.binding for o in outcomes):
        return "allowed: no binding matched the request"
    return "allowed: no policy matched the request"


def _who(outcome: PolicyOutcome) -> str:
    who = f"{outcome.kind} '{outcome.policy}'"
    return f"{who} with binding '{outcome.binding}'" if outcome.binding else who
