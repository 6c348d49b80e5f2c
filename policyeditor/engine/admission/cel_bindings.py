"""The admission plugins' view of CEL: compile a policy's expressions, build activations, evaluate.

Everything the evaluators need from `policyeditor.engine.cel` goes through here, so the contract
with cel-core lives in one place. Runtime compiles with StoredExpressions, as kube-apiserver does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from policyeditor.engine import cel
from policyeditor.engine.admission.request import AdmissionRequest

# The budgets are read through this module at call time, so a test can lower them here.
from policyeditor.engine.cel import BUDGET_MESSAGE as BUDGET_MESSAGE
from policyeditor.engine.cel import MATCH_CONDITIONS_BUDGET as MATCH_CONDITIONS_BUDGET
from policyeditor.engine.cel import PER_CALL_LIMIT as PER_CALL_LIMIT
from policyeditor.engine.cel import RUNTIME_BUDGET as RUNTIME_BUDGET

# The evaluators' record of an expression's values (re-exported for the admission plugins).
from policyeditor.engine.cel import Activation as Activation


@dataclass
class Compiled:
    """One compiled expression: the program or the runtime text of its compile error."""

    expression: str
    program: Any = None
    error: str = ""
    output_type: str = "dyn"

    @property
    def ok(self) -> bool:
        """True when there is a program to run."""
        return self.program is not None and not self.error


def compile_one(
    expression: str,
    context: str,
    version: str,
    *,
    has_params: bool = False,
    variables: tuple[str, ...] = (),
    variable_types: tuple[str, ...] = (),
    mutating: bool = False,
) -> Compiled:
    """Compile an expression in its context with StoredExpressions; never raises."""
    key: _CompiledKey | None = (
        expression,
        context,
        version,
        has_params,
        variables,
        variable_types,
        mutating,
    )
    try:
        cached = _COMPILED.get(key)
    except TypeError:  # unhashable arguments: compile uncached
        key, cached = None, None
    if cached is not None:
        return cached
    compiled = _compile_one(
        expression, context, version, has_params, variables, variable_types, mutating
    )
    if key is not None and type(expression) is str:
        if len(_COMPILED) >= _COMPILED_SIZE:
            _COMPILED.clear()
        _COMPILED[key] = compiled
    return compiled


# Compiled per argument tuple: evaluators look every expression up on every request, and the
# results (like the CEL layer's) never change for the same arguments.
# (expression, context, version, has_params, variables, variable_types, mutating)
_CompiledKey = tuple[str, str, str, bool, tuple[str, ...], tuple[str, ...], bool]
_COMPILED: dict[_CompiledKey | None, Compiled] = {}
_COMPILED_SIZE = 4096


def _compile_one(
    expression: str,
    context: str,
    version: str,
    has_params: bool,
    variables: tuple[str, ...],
    variable_types: tuple[str, ...],
    mutating: bool,
) -> Compiled:
    try:
        declarations = cel.Declarations(
            has_params=has_params,
            variables=variables,
            mutating=mutating,
            variable_types=variable_types,
        )
        result = cel.compile_expression(
            expression,
            context=cel.Context(context),
            version=version,
            declarations=declarations,
            env_type=cel.EnvType.STORED_EXPRESSIONS,
        )
    except Exception as exc:  # noqa: BLE001 - a broken CEL layer must not crash admission
        return Compiled(expression, error=f"compilation error: CEL unavailable: {exc}")
    if not result.ok:
        text = "\n".join(str(issue) for issue in result.errors) or "unknown error"
        return Compiled(expression, error=f"compilation error: compilation failed: {text}")
    return Compiled(
        expression, program=result.program, output_type=getattr(result, "output_type", "dyn")
    )


def compile_validations(
    texts: tuple[tuple[str, str], ...],
    version: str,
    *,
    has_params: bool,
    variables: tuple[str, ...],
    variable_types: tuple[str, ...],
) -> tuple[tuple[Compiled, Compiled | None], ...]:
    """compile_one of each (expression, messageExpression); None for an empty message."""
    # One lookup per policy rather than two per validation on every request.
    key = (texts, version, has_params, variables, variable_types)
    cached = _VALIDATION_SETS.get(key)
    if cached is not None:
        return cached
    result = tuple(
        (
            compile_one(
                expression,
                "validation",
                version,
                has_params=has_params,
                variables=variables,
                variable_types=variable_types,
            ),
            compile_one(
                message,
                "messageExpression",
                version,
                has_params=has_params,
                variables=variables,
                variable_types=variable_types,
            )
            if message
            else None,
        )
        for expression, message in texts
    )
    if len(_VALIDATION_SETS) >= _COMPILED_SIZE:
        _VALIDATION_SETS.clear()
    _VALIDATION_SETS[key] = result
    return result


_ValidationsKey = tuple[tuple[tuple[str, str], ...], str, bool, tuple[str, ...], tuple[str, ...]]
_VALIDATION_SETS: dict[_ValidationsKey, tuple[tuple[Compiled, Compiled | None], ...]] = {}


@dataclass
class VariableSet:
    """A policy's composited variables, compiled in order (each sees only the ones before it)."""

    names: tuple[str, ...] = ()
    expressions: dict[str, str] = field(default_factory=dict)
    compiled: dict[str, Any] = field(default_factory=dict)  # name -> cel CompileResult
    types: tuple[str, ...] = ()


def compile_variables(
    variables: list[dict[str, Any]], version: str, *, has_params: bool, mutating: bool
) -> VariableSet:
    """Compile spec.variables in order, typing each later expression's `variables`."""
    pairs = tuple(
        (str(item.get("name") or ""), str(item.get("expression") or ""))
        for item in variables
        if isinstance(item, dict)
    )
    key: _VariablesKey | None = (pairs, version, has_params, mutating)
    try:
        cached = _VARIABLE_SETS.get(key)
    except TypeError:  # an unhashable version: compile uncached
        key, cached = None, None
    if cached is not None:
        return cached
    result = _compile_variables(pairs, version, has_params=has_params, mutating=mutating)
    if key is not None:
        if len(_VARIABLE_SETS) >= _COMPILED_SIZE:
            _VARIABLE_SETS.clear()
        _VARIABLE_SETS[key] = result
    return result


# (the (name, expression) pairs, version, has_params, mutating)
_VariablesKey = tuple[tuple[tuple[str, str], ...], str, bool, bool]
_VARIABLE_SETS: dict[_VariablesKey | None, VariableSet] = {}


def _compile_variables(
    pairs: tuple[tuple[str, str], ...], version: str, *, has_params: bool, mutating: bool
) -> VariableSet:
    result = VariableSet()
    names: list[str] = []
    types: list[str] = []
    for name, expression in pairs:
        raw = None
        try:
            raw = cel.compile_expression(
                expression,
                context=cel.Context.VARIABLE,
                version=version,
                declarations=cel.Declarations(
                    has_params=has_params,
                    variables=tuple(names),
                    mutating=mutating,
                    variable_types=tuple(types),
                ),
                env_type=cel.EnvType.STORED_EXPRESSIONS,
            )
        except Exception:  # noqa: BLE001
            raw = None
        names.append(name)
        ok = raw is not None and raw.ok
        types.append(getattr(raw, "output_type", "dyn") if ok else "dyn")
        result.expressions[name] = expression
        if raw is not None:
            result.compiled[name] = raw
    result.names = tuple(names)
    result.types = tuple(types)
    return result


def bindings_for(
    request: AdmissionRequest,
    *,
    params: Any = None,
    namespace_object: Any = None,
    authorizer: Any = None,
    obj: Any = None,
    use_request_object: bool = True,
) -> Activation:
    """The activation values for a request (obj replaces request.object, e.g. while mutating).

    Its engine_cache holds the engine's activations of these values, shared by every pass over
    them (match conditions, validations, messages, annotations), so each value converts once.
    """
    return Activation(
        object=request.object if use_request_object else obj,
        old_object=request.old_object,
        request=request.to_cel(),
        params=params,
        namespace_object=namespace_object,
        authorizer=authorizer,
    )


class Evaluator:
    """One activation (one pass): shared lazy variables, one cost budget."""

    def __init__(
        self,
        bindings: Activation,
        variables: VariableSet | None,
        budget_amount: int | None,
        *,
        with_authorizer: bool = True,
        with_namespace: bool = True,
    ) -> None:
        self.error = ""
        self.budget = None
        self.activation = None
        self.resolver = None
        try:
            self.budget = cel.CostBudget(budget_amount) if budget_amount is not None else None
            self.activation = Activation(
                object=bindings.object,
                old_object=bindings.old_object,
                request=bindings.request,
                params=bindings.params,
                namespace_object=bindings.namespace_object if with_namespace else None,
                authorizer=bindings.authorizer if with_authorizer else None,
                engine_cache=bindings.engine_cache,
            )
            if variables is not None and variables.names:
                self.resolver = cel.VariableResolver(variables.compiled, self.activation)
                self.activation.variables = self.resolver
        except Exception as exc:  # noqa: BLE001
            self.error = f"CEL unavailable: {exc}"

    def run(self, compiled: Compiled) -> tuple[bool, Any, int]:
        """(ok, value or error text, cost); runtime errors: `expression ... resulted in error`."""
        if compiled.error:
            return False, compiled.error, 0
        if self.error or self.activation is None:
            return False, self.error or "CEL unavailable", 0
        try:
            ok, value, cost = compiled.program.execute(self.activation, self.budget)
        except Exception as exc:  # noqa: BLE001 - never let a CEL bug escape
            return False, f"expression '{compiled.expression}' resulted in error: {exc}", 0
        if not ok and value != BUDGET_MESSAGE:
            return False, f"expression '{compiled.expression}' resulted in error: {value}", cost
        return ok, value, cost

    def release(self) -> None:
        """Unbind the resolver from the activation once the pass is over (its values stay)."""
        # The activation and its resolver refer to each other: left so, the pair and what it
        # holds wait for the cyclic collector, whose passes then cost every request several
        # microseconds; unbound, reference counting frees them at once.
        if self.activation is not None and self.resolver is not None:
            self.activation.variables = None

    @property
    def budget_exhausted(self) -> bool:
        """True once the shared budget was overdrawn."""
        return bool(self.budget is not None and getattr(self.budget, "exhausted", False))

    def variable_values(self) -> dict[str, tuple[bool, Any]]:
        """The variables this activation evaluated: name -> (ok, value or error text)."""
        if self.resolver is None:
            return {}
        values = getattr(self.resolver, "values", None)
        if values is None:
            values = getattr(self.resolver, "_values", {})
        return dict(values)
