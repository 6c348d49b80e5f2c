"""Composited variables, compiled in order and resolved lazily; evaluate_expression for the CLI.

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
from policyeditor.engine.cel.program import Program
from policyeditor.engine.cel.runtime.activation import Activation, EngineCache
from policyeditor.engine.cel.runtime.functions import holder_name
from policyeditor.engine.cel.runtime.state import CostBudget, CostExceeded, EvalState
from policyeditor.engine.cel.runtime.values import plain_view
from policyeditor.engine.versions import DEFAULT_VERSION


class VariableResolver:
    """Composited variables of one activation: evaluated on first read, then memoised."""

    def __init__(
        self, compiled: dict[str, CompileResult], activation: Activation | None = None
    ) -> None:
        self.compiled = compiled
        self.activation = activation
        self._values: dict[str, tuple[bool, Any]] = {}
        self._plain: dict[str, tuple[bool, Any]] = {}  # `values`, converted once per name
        # One list per variable, bound in this resolver's engine activations and filled with
        # the value when it is resolved, before any read of it (runtime.lowering._hold_variables).
        self._holder_of: dict[str, list[Any]] = {}  # variable name -> its holder
        self.holders: dict[str, list[Any]] = {}  # activation name -> holder
        for name in compiled:
            holder = holder_name(name)
            if holder is not None:
                self.holders[holder] = self._holder_of[name] = []
        self.engine_cache: EngineCache = {}  # Activation.engine_activation's, for this resolver

    @property
    def values(self) -> dict[str, tuple[bool, Any]]:
        """The variables evaluated so far: name -> (ok, plain value or error text)."""
        plain = self._plain
        for name, (ok, value) in self._values.items():
            if name not in plain:
                # Shared with the holder, not copied: neither the engine nor the trace changes it.
                plain[name] = (ok, plain_view(value) if ok else value)
        return dict(plain)

    def all_resolved(self, names: tuple[str, ...]) -> bool:
        """True when every one of names was evaluated, without error, by this resolver."""
        values = self._values
        for name in names:
            result = values.get(name)
            if result is None or not result[0]:
                return False
        return True

    def bind(self, activation: Activation) -> VariableResolver:
        """A fresh resolver (empty memo) over activation: each activation re-evaluates."""
        resolver = VariableResolver(self.compiled, activation)
        activation.variables = resolver
        return resolver

    def resolve(self, name: str, state: EvalState) -> Any:
        """The value of variable name; raises ValueError with Kubernetes' wording on failure."""
        if name in self._values:
            ok, value = self._values[name]
            if ok:
                return value
            raise ValueError(value)
        compiled = self.compiled.get(name)
        if compiled is None:
            raise ValueError(f"no such attribute(s): variables.{name}")
        if not compiled.ok:
            message = f'composited variable "{name}" fails to compile: {compiled.error_text()}'
            self._values[name] = (False, message)
            raise ValueError(message)
        activation = self.activation if self.activation is not None else Activation(variables=self)
        # Optional variables stay in their [value] / [] form: the reader indexes them back.
        # The value stays in the engine's Python form (durations, timestamps, bytes as such),
        # so readers see the variable's CEL type; `values` converts it for display.
        ok, value = compiled.program.run(activation, state, raw_optional=True, engine_value=True)
        if not ok:
            if state.exceeded:
                raise CostExceeded(state.exceeded)
            message = f'composited variable "{name}" fails to evaluate: {value}'
            self._values[name] = (False, message)
            raise ValueError(message)
        self._values[name] = (True, value)
        holder = self._holder_of.get(name)
        if holder is not None and not holder:
            holder.append(value)
        return value


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
