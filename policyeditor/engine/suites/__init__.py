"""Policy test suites: the common model, discovery, the runner, the worker pool and the formats."""

from policyeditor.engine.suites.case import run_case
from policyeditor.engine.suites.model import CaseResult, Expectation, SuiteError, TestCase
from policyeditor.engine.suites.plan import SuiteUnit, discover, load_unit, run_unit, suite_plan
from policyeditor.engine.suites.runner import Report, run

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
