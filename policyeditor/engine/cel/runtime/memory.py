"""Allocation failures in an evaluation: told apart from CEL errors, they stop the whole call."""

from __future__ import annotations

from typing import NoReturn

from policyeditor.engine.cel.runtime.state import CURRENT, EvalState
from policyeditor.engine.errors import MemoryExhausted

# How cel-expr-python 0.1.3 reports an allocation failure (found by experiment, under RLIMIT_AS):
# - a Python MemoryError in a function implementation (the format helper growing a string) becomes
#   an error value with the status RESOURCE_EXHAUSTED, "RESOURCE_EXHAUSTED: " and str(exc), which
#   is usually empty;
# - a C++ std::bad_alloc leaves eval() as MemoryError("std::bad_alloc") (pybind11's translation);
# - a status the evaluation itself fails with leaves eval() as RuntimeError("<STATUS>: <text>
#   [<STATUS>]").
# Other errors start with their own status (INVALID_ARGUMENT, NOT_FOUND, UNKNOWN...), and text of
# the user's only ever follows one: `NOT_FOUND: Key not found in map : "RESOURCE_EXHAUSTED: x"`.
STATUS = "RESOURCE_EXHAUSTED:"
# What `exceeded` holds once memory ran out, so every loop stops as at the cost limit; never shown.
EXCEEDED = "evaluation ran out of memory"


def is_exhausted(failure: BaseException | str) -> bool:
    """Whether an exception of eval() or an error value's raw text is an allocation failure."""
    if isinstance(failure, str):
        return failure.startswith(STATUS)
    if isinstance(failure, RuntimeError):
        return str(failure).startswith(STATUS)
    return isinstance(failure, MemoryError)


def stop_if_exhausted(failure: BaseException | str, state: EvalState | None) -> None:
    """stop() when failure (see is_exhausted) is an allocation failure; else nothing."""
    if is_exhausted(failure):
        stop(state)


def stop(state: EvalState | None) -> NoReturn:
    """End the evaluation: mark its state (an enclosing one reads it) and raise MemoryExhausted."""
    mark(state)
    raise MemoryExhausted


def note() -> None:
    """Mark the running evaluation as out of memory (a function implementation caught it)."""
    mark(CURRENT.get())


def mark(state: EvalState | None) -> None:
    """Record on state that memory ran out; its loops stop as they do at the cost limit."""
    if state is not None:
        state.out_of_memory = True
        state.exceeded = state.exceeded or EXCEEDED
