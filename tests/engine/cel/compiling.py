"""Compiling one validation expression as the API server stores it, for the CEL tests."""

from __future__ import annotations

from policyeditor.engine import cel


def compile_stored(expr: str, **decl) -> cel.CompileResult:
    """`expr` compiled as a validation of Kubernetes 1.37 with StoredExpressions."""
    return cel.compile_expression(
        expr,
        context=cel.Context.VALIDATION,
        version="1.37",
        declarations=cel.Declarations(**decl),
        env_type=cel.EnvType.STORED_EXPRESSIONS,
    )
