"""Calling the engine from an API view: the shared gate of core, its limits turned into problems."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from policyeditor.api.problems import Problem
from policyeditor.core.engine_gate import EngineLimit, deadline_for, run_engine

__all__ = ["call_engine", "deadline_for"]

_PROBLEMS = {
    "timeout": ("evaluation-limit", "Evaluation limit exceeded"),
    "crashed": ("evaluation-limit", "Evaluation limit exceeded"),
    "failure": ("engine-failure", "Input the engine cannot process"),
}


def call_engine(fn: Callable[..., dict], *args: Any, timeout: float | None = None) -> dict:
    """Run an engine_calls function with a deadline; its reported problems become API problems."""
    try:
        result = run_engine(fn, *args, timeout=timeout)
    except EngineLimit as exc:
        slug, title = _PROBLEMS.get(exc.reason, _PROBLEMS["failure"])
        raise Problem(422, exc.message, slug=slug, title=title) from exc
    problem = result.get("problem") if isinstance(result, dict) else None
    if problem:
        raise Problem(problem["status"], problem["detail"], errors=problem.get("errors"))
    return result
