"""The start-up check: the engine's parts load, or `manage.py check` says which one does not."""

from __future__ import annotations

import io
import sys

import pytest
from django.core.checks import run_checks
from django.core.management import call_command
from django.core.management.base import SystemCheckError

from policyeditor.core import checks
from policyeditor.engine import schemas
from policyeditor.engine.cel import compiler
from policyeditor.engine.cel.issues import CelIssue
from policyeditor.engine.cel.model import CompileResult


def _ids() -> list[str]:
    return [message.id for message in run_checks(tags=["policyeditor"])]


def test_a_complete_engine_passes_the_check():
    assert checks.engine_parts() == []
    assert _ids() == []


def test_a_missing_cel_runtime_is_error_e001(monkeypatch):
    # None in sys.modules makes the next import of the module fail, as if it were not installed.
    monkeypatch.setitem(sys.modules, "cel_expr_python.cel", None)
    errors = checks.engine_parts()
    assert [error.id for error in errors] == ["policyeditor.E001"]
    assert "cel-expr-python" in errors[0].msg


def test_a_cel_environment_that_does_not_compile_is_error_e002(monkeypatch):
    broken = CompileResult(errors=[CelIssue(message="undeclared reference to '_+_'")])
    monkeypatch.setattr(compiler, "compile_expression", lambda expression: broken)
    errors = checks.engine_parts()
    assert [error.id for error in errors] == ["policyeditor.E002"]
    assert "'1 + 1 == 2'" in errors[0].msg and "undeclared reference" in errors[0].msg


def test_a_crashing_cel_environment_is_error_e002(monkeypatch):
    def crash(expression):
        raise RuntimeError("no environment")

    monkeypatch.setattr(compiler, "compile_expression", crash)
    assert _ids() == ["policyeditor.E002"]


def test_unreadable_schemas_are_error_e003(monkeypatch):
    def unavailable(k8s_version=None):
        raise schemas.SchemasUnavailable("kubernetes-validate ships no schemas: reinstall it")

    monkeypatch.setattr(schemas, "definitions", unavailable)
    errors = checks.engine_parts()
    assert [error.id for error in errors] == ["policyeditor.E003"]
    assert "ships no schemas" in errors[0].msg


def test_manage_py_check_refuses_to_pass_with_a_broken_part(monkeypatch):
    monkeypatch.setitem(sys.modules, "cel_expr_python.cel", None)
    with pytest.raises(SystemCheckError, match="policyeditor.E001"):
        call_command("check", stdout=io.StringIO(), stderr=io.StringIO())
