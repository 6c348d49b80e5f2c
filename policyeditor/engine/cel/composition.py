"""Composited variables and the one-shot evaluate_expression for the CLI.

Variables follow kubernetes/kubernetes staging/src/k8s.io/apiserver/pkg/admission/plugin/cel/
composition.go: CompositedCompiler.CompileAndStoreVariable types `variables.<name>`, and
variableAccessor.Callback evaluates each lazily, once per activation.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from policyeditor.engine.cel.compiler import compile_expression
from policyeditor.engine.cel.model import (
    NO_DECLARATIONS,
    CompileResult,
    Context,
    Declarations,
    EnvType,
    EvalResult,
)
from policyeditor.engine.cel.program import Program, VariableResolver
from policyeditor.engine.cel.runtime.activation import Activation
from policyeditor.engine.cel.runtime.state import CostBudget
from policyeditor.engine.versions import DEFAULT_VERSION


def compile_variables(
    variables: Sequence[tuple[str, str]],
    *,
    version: str = DEFAULT_VERSION,
    declarations: Declarations = NO_DECLARATIONS,
    env_type: EnvType = EnvType.NEW_EXPRESSIONS,
) -> tuple[dict[str, CompileResult], Declarations]:
    """Compile (name, expression) pairs in order, each seeing the earlier ones with their types.

    Returns the results by name and the Declarations (with variable names and types) that the
    policy's other expressions compile with. A variable that fails to compile is declared dyn.
    """
    results: dict[str, CompileResult] = {}
    names: list[str] = []
    types: list[str] = []
    for name, expression in variables:
        current = Declarations(
            has_params=declarations.has_params,
            variables=tuple(names),
            mutating=declarations.mutating,
            variable_types=tuple(types),
        )
        result = compile_expression(
            expression,
            context=Context.VARIABLE,
            version=version,
            declarations=current,
            env_type=env_type,
        )
        results[name] = result
        names.append(name)
        types.append(declarable(result.output_type) if result.ok else "dyn")
    final = Declarations(
        has_params=declarations.has_params,
        variables=tuple(names),
        mutating=declarations.mutating,
        variable_types=tuple(types),
    )
    return results, final


def declarable(type_text: str) -> str:
    """The type a composited variable is declared with, from its expression's output type."""
    # Kubernetes keeps list/map/scalar types and makes everything else dyn: kubernetes/kubernetes
    # staging/src/k8s.io/apiserver/pkg/admission/plugin/cel/composition.go, convertCelTypeToDeclType.
    if type_text.startswith(("Object", "JSONPatch", "list(JSONPatch", "list(Object")):
        return "dyn"
    if "*error*" in type_text or type_text.startswith("type("):
        return "dyn"
    return type_text


def evaluate_expression(
    expression: str,
    *,
    object: Any = None,  # noqa: A002 - the Kubernetes variable name
    old_object: Any = None,
    params: Any = None,
    request: dict[str, Any] | None = None,
    namespace_object: Any = None,
    authorizer: Any = None,
    variables: Sequence[tuple[str, str]] = (),
    version: str = DEFAULT_VERSION,
    context: Context = Context.VALIDATION,
    env_type: EnvType = EnvType.NEW_EXPRESSIONS,
    mutating: bool = False,
    budget: int | None = None,
    has_params: bool | None = None,
) -> EvalResult | CompileResult:
    """Compile and evaluate one expression: an EvalResult, or the CompileResult with its errors."""
    # `params` is declared when a param kind is set; by default, when a param object is given.
    declared_params = params is not None if has_params is None else has_params
    base = Declarations(has_params=declared_params, mutating=mutating)
    compiled_vars, declarations = compile_variables(
        variables, version=version, declarations=base, env_type=env_type
    )
    compiled = compile_expression(
        expression, context=context, version=version, declarations=declarations, env_type=env_type
    )
    if not compiled.ok:
        return compiled
    activation = Activation(
        object=object,
        old_object=old_object,
        request=request,
        params=params,
        namespace_object=namespace_object,
        authorizer=authorizer,
    )
    VariableResolver(compiled_vars).bind(activation)
    program: Program = compiled.program  # CompileResult.program is Any: model cannot import it
    return program.evaluate(activation, budget=CostBudget(budget) if budget is not None else None)
