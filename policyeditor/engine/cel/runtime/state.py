"""Per-evaluation state reached from Python function implementations (cost, variables)."""

from __future__ import annotations

import contextvars
from typing import Any

COST_LIMIT_MESSAGE = "operation cancelled: actual cost limit exceeded"
BUDGET_MESSAGE = (
    "validation failed due to running out of cost budget, no further validation rules will be run"
)


class CostBudget:
    """A runtime cost budget shared by several expressions of one evaluation."""

    def __init__(self, remaining: int) -> None:
        self.remaining = remaining

    def charge(self, amount: int) -> bool:
        """Take amount from the budget; False once it is overdrawn."""
        self.remaining -= amount
        return self.remaining >= 0

    @property
    def exhausted(self) -> bool:
        """True once more was charged than the budget held."""
        return self.remaining < 0


class CostExceeded(Exception):
    """Raised inside the CEL program when a limit is passed, so evaluation stops."""


class EvalState:
    """What one running evaluation tracks: its cost, limit, budget and variable resolver."""

    # A plain class: one is made per expression evaluated, on the hot path.
    __slots__ = ("budget", "cost", "exceeded", "limit", "out_of_memory", "resolver")

    def __init__(self, limit: int, budget: CostBudget | None = None, resolver: Any = None) -> None:
        self.limit = limit
        self.budget = budget
        self.resolver = resolver
        self.cost = 0
        self.exceeded = ""  # "" or the message of the limit that was passed
        # Set where an allocation failed: the engine turns that failure into an error value,
        # which CEL's `||`, `&&` and macros may absorb, so the evaluator reads this instead.
        self.out_of_memory = False

    def charge(self, amount: int) -> None:
        """Add amount to this evaluation's cost; raise once a limit is passed."""
        self.cost += amount
        if self.exceeded:
            raise CostExceeded(self.exceeded)
        if self.cost > self.limit:
            self.exceeded = COST_LIMIT_MESSAGE
        elif self.budget is not None and self.cost > self.budget.remaining:
            self.exceeded = BUDGET_MESSAGE
        if self.exceeded:
            raise CostExceeded(self.exceeded)


CURRENT: contextvars.ContextVar[EvalState | None] = contextvars.ContextVar(
    "policyeditor_cel_eval_state", default=None
)


def current() -> EvalState | None:
    """The evaluation running in this context, if any."""
    return CURRENT.get()
