"""Counting rows as they stream by: per operation and result, mutated, audited, changed."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from policyeditor.engine.impact.evaluate import OPERATIONS, RESULTS


def changed(row: dict[str, Any]) -> bool:
    """Whether the revision's outcome differs from the baseline's for any operation."""
    return any(
        f"{op}_before" in row and row[f"{op}_before"]["result"] != row[op]["result"]
        for op in OPERATIONS
    )


def denied_newly(row: dict[str, Any]) -> bool:
    """Whether the revision denies, for some operation, an object the baseline let through."""
    return any(
        row[op]["result"] == "deny"
        and f"{op}_before" in row
        and row[f"{op}_before"]["result"] not in ("deny", "error")
        for op in OPERATIONS
    )


@dataclass
class Summary:
    """Counts of every row added so far."""

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
        if changed(row):
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
