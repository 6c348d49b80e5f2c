"""The linter's value types: a rule (code, title, why, fix) and one finding of it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Rule:
    """One pitfall: a stable code, a title, why it bites and how to fix it."""

    code: str
    title: str
    why: str
    fix: str


@dataclass(frozen=True)
class Finding:
    """One place where a rule fires: the field, the position in the expression and the fix."""

    code: str
    path: str
    message: str
    fix: str
    line: int | None = None
    column: int | None = None
    severity: str = "warning"

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}:{self.column}" if self.line else self.path
        return f"{where}: {self.severity} {self.code}: {self.message} (fix: {self.fix})"

    def to_dict(self) -> dict[str, Any]:
        """JSON form for the API and `policyeditor lint -o json`."""
        return {
            "code": self.code,
            "severity": self.severity,
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "message": self.message,
            "fix": self.fix,
        }
