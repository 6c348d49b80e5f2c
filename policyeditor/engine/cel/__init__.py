"""The kube-apiserver CEL environment for admission policies, on cel-expr-python.

Public API:
- compile_expression(expr, *, context, version, declarations, env_type) -> CompileResult
- Program.evaluate(activation, *, budget=None, limit=PER_CALL_LIMIT) -> EvalResult
- compile_variables(...) / VariableResolver for composited variables (lazy, memoised)
- evaluate_expression(...) convenience for the CLI
- parse_expression(expr) -> the parsed AST with positions (for linters), or None
- type_check / type_check_warning: schema-aware warnings (status.typeChecking)

Positions: CelIssue.line and .column are 1-based, exactly as cel-go prints them.
"""

from __future__ import annotations

from policyeditor.engine.cel.compiler import clear_cache, compile_expression, parse_expression
from policyeditor.engine.cel.composition import (
    VariableResolver,
    compile_variables,
    evaluate_expression,
)
from policyeditor.engine.cel.cost import (
    AUTHZ_CHECK_COST,
    MATCH_CONDITIONS_BUDGET,
    PER_CALL_LIMIT,
    RUNTIME_BUDGET,
)
from policyeditor.engine.cel.crd_rules import crd_rule_errors
from policyeditor.engine.cel.issues import CelIssue, format_issues
from policyeditor.engine.cel.library.authz import AuthorizationDecision, Authorizer
from policyeditor.engine.cel.model import CompileResult, Context, Declarations, EnvType, EvalResult
from policyeditor.engine.cel.program import Program
from policyeditor.engine.cel.runtime.activation import Activation
from policyeditor.engine.cel.runtime.state import BUDGET_MESSAGE, COST_LIMIT_MESSAGE, CostBudget
from policyeditor.engine.cel.schema_check import type_check, type_check_warning
from policyeditor.engine.schemas.crds import install_rule_checker

install_rule_checker(crd_rule_errors)

__all__ = [
    "AUTHZ_CHECK_COST",
    "BUDGET_MESSAGE",
    "COST_LIMIT_MESSAGE",
    "MATCH_CONDITIONS_BUDGET",
    "PER_CALL_LIMIT",
    "RUNTIME_BUDGET",
    "Activation",
    "AuthorizationDecision",
    "Authorizer",
    "CelIssue",
    "CompileResult",
    "Context",
    "CostBudget",
    "Declarations",
    "EnvType",
    "EvalResult",
    "Program",
    "VariableResolver",
    "clear_cache",
    "compile_expression",
    "compile_variables",
    "evaluate_expression",
    "format_issues",
    "parse_expression",
    "type_check",
    "type_check_warning",
]
