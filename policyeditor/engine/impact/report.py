"""Counting rows as they stream by: per operation and result, mutated, audited, changed.

A row without a baseline (no `CREATE_before`) is compared with "no policy", which allows every
request and does nothing to it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from policyeditor.engine.impact.evaluate import OPERATIONS, RESULTS


def allowed(outcome: dict[str, Any]) -> bool:
    """Whether the API server would admit the request of this outcome."""
    if "allowed" in outcome:
        return bool(outcome["allowed"])
    # Rows stored before outcomes carried `allowed`: an error counts as a rejection (fail closed).
    return outcome["result"] not in ("deny", "error")


def label(result: str, allowed: bool | None) -> str:
    """A result as the CLI and the pages show it: an error says whether the API server rejects
    or admits the request (failurePolicy, validationActions); None: not known."""
    if result != "error" or allowed is None:
        return result
    return "error (admitted)" if allowed else "error (rejected)"


def differs(before: dict[str, Any], after: dict[str, Any]) -> bool:
    """Whether two outcomes of one request differ: result, answer, mutation or audit annotations."""
    # A new mutation or audit annotation changes what the cluster stores or records even when
    # the request is admitted either way, as acting on a request does without a baseline (acts).
    return (
        before["result"] != after["result"]
        or allowed(before) != allowed(after)
        or bool(before.get("mutated")) != bool(after.get("mutated"))
        or int(before.get("audit", 0)) != int(after.get("audit", 0))
    )


def changed(row: dict[str, Any]) -> bool:
    """Whether the revision's outcome differs from the baseline's for any operation."""
    return any(f"{op}_before" in row and differs(row[f"{op}_before"], row[op]) for op in OPERATIONS)


def acts(outcome: dict[str, Any]) -> bool:
    """Whether the policies did anything to a request: not allowed, a result other than allow or
    skip (warn, audit, error), audit annotations or a mutation."""
    return (
        not allowed(outcome)
        or outcome["result"] not in ("allow", "skip")
        or bool(outcome.get("audit"))
        or bool(outcome.get("mutated"))
    )


def affected(row: dict[str, Any]) -> bool:
    """Whether the policies act on the object in some operation: "changed" with no baseline."""
    return any(acts(row[op]) for op in OPERATIONS)


def has_baseline(row: dict[str, Any]) -> bool:
    """Whether the row was evaluated against a baseline too."""
    return any(f"{op}_before" in row for op in OPERATIONS)


def compared(row: dict[str, Any]) -> bool:
    """changed against the baseline; with none, affected (the baseline is "no policy")."""
    return changed(row) if has_baseline(row) else affected(row)


def denied_newly(row: dict[str, Any]) -> bool:
    """Whether, for some operation, the revision does not allow what the baseline allowed.

    "Not allowed" is the API server's answer, so an error under failurePolicy Fail counts and one
    under Ignore does not. Without a baseline every request was allowed.
    """
    return any(
        not allowed(row[op]) and (f"{op}_before" not in row or allowed(row[f"{op}_before"]))
        for op in OPERATIONS
    )


@dataclass
class Summary:
    """Counts of every row added so far (`changed`: against the baseline, or affected)."""

    total: int = 0
    changed: int = 0
    denied_newly: int = 0
    counts: dict[str, Counter[str]] = field(
        default_factory=lambda: {op: Counter() for op in OPERATIONS}
    )
    namespaces_seen: set[str] = field(default_factory=set)

    def add(self, row: dict[str, Any]) -> None:
        """Count one row."""
        self.total += 1
        for op in OPERATIONS:
            counter = self.counts[op]
            counter[row[op]["result"]] += 1
            counter["mutated"] += bool(row[op].get("mutated"))
            counter["annotations"] += int(row[op].get("audit", 0))
        if compared(row):
            self.changed += 1
        if denied_newly(row):
            self.denied_newly += 1
        if row.get("namespace"):
            self.namespaces_seen.add(row["namespace"])

    def to_dict(self) -> dict[str, Any]:
        """Counts per operation (every result, mutated, annotations), changed, total."""
        data: dict[str, Any] = {
            op: {key: self.counts[op].get(key, 0) for key in (*RESULTS, "mutated", "annotations")}
            for op in OPERATIONS
        }
        data.update(total=self.total, changed=self.changed, deniedNewly=self.denied_newly)
        return data
