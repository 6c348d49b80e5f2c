"""Policy test suites: the common model, discovery, the runner, the worker pool and the formats."""

from policyeditor.engine.suites.runner import (
    CaseResult,
    Expectation,
    Report,
    SuiteError,
    SuiteUnit,
    TestCase,
    discover,
    load_unit,
    run,
    run_case,
    run_unit,
    suite_plan,
)

__all__ = [
    "CaseResult",
    "Expectation",
    "Report",
    "SuiteError",
    "SuiteUnit",
    "TestCase",
    "discover",
    "load_unit",
    "run",
    "run_case",
    "run_unit",
    "suite_plan",
]
