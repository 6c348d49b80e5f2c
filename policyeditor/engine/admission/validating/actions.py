"""The VAP dispatcher's side of a decision: validationActions, configuration errors, audit data."""

from __future__ import annotations

import json
from dataclasses import dataclass

from policyeditor.engine.admission.result import AuditFailure, PolicyOutcome

KIND = "ValidatingAdmissionPolicy"
VALIDATION_FAILURE_KEY = "validation.policy.admission.k8s.io/validation_failure"


@dataclass
class Decision:
    """One PolicyDecision: action deny/admit, evaluation admit/deny/error, message, reason."""

    action: str
    evaluation: str
    message: str = ""
    reason: str = ""
    index: int = 0


def deny_text(policy: str, binding: str | None, message: str) -> str:
    """The text of a VAP denial as the dispatcher formats it."""
    if binding:
        return f"{KIND} '{policy}' with binding '{binding}' denied request: {message}"
    return f"{KIND} '{policy}' denied request: {message}"


def truncate(text: str, limit: int) -> str:
    data = text.encode()
    if len(data) <= limit:
        return text
    return data[:limit].decode(errors="ignore")


def config_error(outcome: PolicyOutcome, message: str, *, binding_level: bool) -> None:
    """A configuration error: denies under Fail (no validationActions), dropped under Ignore."""
    prefix = "failed to configure binding" if binding_level else "failed to configure policy"
    text = f"{prefix}: {message}"
    outcome.errors.append(text)
    if outcome.failure_policy == "Ignore":
        outcome.result = "error"
        outcome.reason = f"configuration error ignored (failurePolicy Ignore): {message}"
        return
    outcome.result = "error"
    full = deny_text(outcome.policy, outcome.binding if binding_level else None, text)
    outcome.denials.append({"message": full, "reason": "Invalid", "error": True})
    outcome.message = full


def apply_actions(
    outcome: PolicyOutcome, decisions: list[Decision], audits: list[tuple[str, str, str]]
) -> None:
    """Fan Deny decisions out to the binding's validationActions; publish audit annotations."""
    had_error = any(d.evaluation == "error" for d in decisions)
    results: list[str] = []
    for decision in decisions:
        if decision.action != "deny":
            continue
        for action in outcome.actions:
            if action == "Deny":
                full = deny_text(outcome.policy, outcome.binding, decision.message)
                outcome.denials.append(
                    {
                        "message": full,
                        "reason": decision.reason or "Invalid",
                        "error": decision.evaluation == "error",
                    }
                )
                if not outcome.message:
                    outcome.message = full
                results.append("deny")
            elif action == "Warn":
                outcome.warnings.append(
                    f"Validation failed for {KIND} '{outcome.policy}' with binding "
                    f"'{outcome.binding or outcome.policy}': {decision.message}"
                )
                results.append("warn")
            elif action == "Audit":
                outcome.audit_failures.append(
                    {
                        "message": decision.message,
                        "policy": outcome.policy,
                        "binding": outcome.binding or "",
                        "expressionIndex": decision.index,
                        "validationActions": list(outcome.actions),
                    }
                )
                results.append("audit")
    for key, action, value in audits:
        if action == "publish":
            outcome.annotations[f"{outcome.policy}/{key}"] = value
        elif action == "error":
            had_error = True
            outcome.errors.append(value)
            if outcome.failure_policy != "Ignore":
                full = deny_text(outcome.policy, outcome.binding, value)
                outcome.denials.append({"message": full, "reason": "Invalid", "error": True})
                if not outcome.message:
                    outcome.message = full
                results.append("deny")
    for decision in decisions:
        if decision.evaluation == "error":
            outcome.errors.append(decision.message)
    if had_error:
        outcome.result = "error"
    elif results:
        outcome.result = min(results, key=["deny", "warn", "audit"].index)
    else:
        outcome.result = "allow"


def go_json(value: object) -> str:
    """JSON as Go's encoding/json writes it: compact, UTF-8, HTML characters escaped."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    for char, escape in (
        ("&", "\\u0026"),
        ("<", "\\u003c"),
        (">", "\\u003e"),
        ("\u2028", "\\u2028"),
        ("\u2029", "\\u2029"),
    ):
        text = text.replace(char, escape)
    return text


def audit_annotations(outcomes: list[PolicyOutcome]) -> dict[str, str]:
    """The request's audit annotations: per-policy keys and the validation_failure array."""
    # Values of one key are de-duplicated and joined with ", "; at most 50 failures are kept.
    collected: dict[str, list[str]] = {}
    failures: list[AuditFailure] = []
    for outcome in outcomes:
        for key, value in outcome.annotations.items():
            values = collected.setdefault(key, [])
            if value not in values:
                values.append(value)
        failures.extend(outcome.audit_failures)
    result = {key: ", ".join(values) for key, values in collected.items()}
    if failures:
        result[VALIDATION_FAILURE_KEY] = go_json(failures[:50])
    return result
