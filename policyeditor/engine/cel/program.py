"""Compiled programs, activations and lazy composited variables."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import cel_expr_python.cel as cel

from . import runtime_state
from .cost import PER_CALL_LIMIT
from .issues import CelIssue
from .issues import translate_runtime_message as _translate
from .model import CompileResult, Context, EvalResult
from .runtime_functions import strip_markers
from .runtime_state import CostBudget, CostExceeded, EvalState
from .values import namespace_value, sanitize_input, to_engine, to_plain


@dataclass
class Activation:
    """The values of one evaluation; `variables` resolves composited variables lazily."""

    object: Any = None
    old_object: Any = None
    request: dict | None = None
    params: Any = None
    namespace_object: Any = None
    authorizer: Any = None
    variables: VariableResolver | None = None

    # cel-expr-python activations per variant, reused by every program of this activation:
    # the engine converts each value once, on first read, and keeps the conversion.
    _engine: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def data(
        self, names: frozenset[str], authorizer_value: Any = None, request_resource: Any = None
    ) -> dict[str, Any]:
        """The activation mapping handed to cel-expr-python, limited to the names read."""
        data: dict[str, Any] = {}
        if "object" in names:
            data["object"] = self.object
        if "oldObject" in names:
            data["oldObject"] = self.old_object
        if "request__map" in names:
            data["request__map"] = self.request if self.request is not None else {}
        if "namespaceObject__map" in names:
            data["namespaceObject__map"] = namespace_value(self.namespace_object)
        if "params" in names:
            data["params"] = self.params
        if authorizer_value is not None:
            data["authorizer"] = authorizer_value
        if request_resource is not None:
            data["authorizer.requestResource"] = request_resource
        return data

    def engine_activation(self, env: Any, *, authorizer: bool, match_condition: bool) -> Any:
        """The shared cel-expr-python activation of this variant (built once, reused)."""
        sources = (
            self.object,
            self.old_object,
            self.request,
            self.params,
            self.namespace_object,
            self.authorizer,
        )
        key = (authorizer, match_condition)
        cached = self._engine.get(key)
        # Fields reassigned since the activation was built invalidate it.
        if cached is not None:
            old = cached[0]
            if (
                old[0] is sources[0]
                and old[1] is sources[1]
                and old[2] is sources[2]
                and old[3] is sources[3]
                and old[4] is sources[4]
                and old[5] is sources[5]
            ):
                return cached[1]
        authorizer_value = request_resource = None
        if authorizer:
            from . import library_bridge

            authorizer_value, request_resource = library_bridge.authorizer_values(
                self.authorizer, self.request
            )
        data = self.data(ALL_NAMES, authorizer_value, request_resource)
        if match_condition:
            data["namespaceObject__map"] = None  # Kubernetes never binds it for match conditions
        built = env.Activation(data=data)
        self._engine[key] = (sources, built)
        return built


# Every name Activation.data can bind: the engine converts values lazily, so unread ones are free.
ALL_NAMES = frozenset(("object", "oldObject", "request__map", "namespaceObject__map", "params"))


# cel-expr-python stops any evaluation after 10,000 comprehension iterations in total (cel-cpp's
# comprehension_max_iterations, not configurable from Python). Kubernetes has no such cap, so
# this is reported as what it is rather than as a Kubernetes cost error.
ENGINE_ITERATION_MESSAGE = (
    "evaluation stopped after 10000 comprehension iterations: a limit of the CEL engine used by "
    "policyeditor (cel-expr-python), not of Kubernetes"
)


class VariableResolver:
    """Composited variables of one activation: evaluated on first read, then memoised."""

    def __init__(
        self, compiled: dict[str, CompileResult], activation: Activation | None = None
    ) -> None:
        self.compiled = compiled
        self.activation = activation
        self._values: dict[str, tuple[bool, Any]] = {}
        self._plain: dict[str, tuple[bool, Any]] = {}  # `values`, converted once per name

    @property
    def values(self) -> dict[str, tuple[bool, Any]]:
        """The variables evaluated so far: name -> (ok, plain value or error text)."""
        plain = self._plain
        for name, (ok, value) in self._values.items():
            if name not in plain:
                plain[name] = (ok, to_plain(value) if ok else value)
        return dict(plain)

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
        return value


_ERROR = cel.Type.ERROR
_UNCONVERTIBLE = object()


def _inspect(value: Any) -> tuple[bool, Any]:
    """(is an error, plain value or _UNCONVERTIBLE); the type is read only when ambiguous."""
    try:
        raw = value.plain_value()
    except Exception:  # noqa: BLE001 - optionals and other values with no Python form
        return value.type() == _ERROR, _UNCONVERTIBLE
    # Error values come back as their message text: only strings need the (slower) type check.
    if type(raw) is str:
        return value.type() == _ERROR, raw
    return False, raw


class Program:
    """A compiled expression ready to evaluate (cheap to call many times)."""

    def __init__(
        self,
        expression: Any,
        env: Any,
        runtime: Any,
        source: str,
        checked: Any = None,
        rewrite: Any = None,
    ) -> None:
        self._expression = expression
        self._env = env
        self.runtime = runtime
        self.source = source
        self.checked = checked  # the type-checked AST (positions in the rewritten text)
        self._rewrite = rewrite
        # Decided once per program rather than on every evaluation.
        names = runtime.idents
        self._match_condition = env.context == Context.MATCH_CONDITION
        self._may_authorize = bool(
            env.authorizer and ("authorizer" in names or "authorizer.requestResource" in names)
        )
        # A literal (a constant message, say) evaluates to the same value every time: the engine
        # runs it once, later evaluations only charge its cost.
        self._literal = _is_literal(runtime.checked) and not runtime.needs_state
        self._literal_result: tuple[bool, Any] | None = None

    def to_original(self, offset: int) -> int:
        """Map an offset of the checked AST's source positions to the user's text."""
        return self._rewrite.to_original(offset) if self._rewrite is not None else offset

    def run(
        self,
        activation: Activation,
        state: EvalState,
        *,
        raw_optional: bool = False,
        engine_value: bool = False,
    ) -> tuple[bool, Any]:
        """Evaluate inside a running state: (True, plain value) or (False, error message).

        engine_value: the value as cel-expr-python hands it out, to be handed back to it.
        """
        try:
            state.charge(self.runtime.base_cost)
        except CostExceeded as exc:
            return False, str(exc)
        if self._literal_result is not None and not engine_value and not raw_optional:
            return self._literal_result
        names = self.runtime.idents
        with_authorizer = self._may_authorize and activation.authorizer is not None
        match_condition = self._match_condition
        is_error = False
        raw: Any = _UNCONVERTIBLE
        try:
            engine_activation = activation.engine_activation(
                self._env.env, authorizer=with_authorizer, match_condition=match_condition
            )
            value = self._expression.eval(activation=engine_activation)
            is_error, raw = _inspect(value)
            retry = is_error and "out of range for" in str(value.value())
        except Exception:  # noqa: BLE001 - conversion failures of odd input: retry sanitized
            retry = True
        if retry:
            # Integers beyond int64 are doubles in Kubernetes' JSON decoding; convert and retry
            # (kept off the hot path: most objects hold no such numbers).
            authorizer_value = request_resource = None
            if with_authorizer:
                from . import library_bridge

                authorizer_value, request_resource = library_bridge.authorizer_values(
                    activation.authorizer, activation.request
                )
            data = activation.data(names, authorizer_value, request_resource)
            if match_condition and "namespaceObject__map" in data:
                data["namespaceObject__map"] = None
            data = {k: sanitize_input(v) for k, v in data.items()}
            try:
                value = self._expression.eval(data=data)
                is_error, raw = _inspect(value)
            except Exception as exc:  # noqa: BLE001 - unconvertible input is a runtime error
                if "Iteration budget exceeded" in str(exc):
                    return False, ENGINE_ITERATION_MESSAGE
                return False, f"invalid input: {exc}"
        if state.exceeded:
            return False, state.exceeded
        if is_error:
            # cel-expr-python also labels values it cannot name (optionals) ERROR.
            try:
                return False, _translate(str(value.value()))
            except Exception:  # noqa: BLE001
                return True, None
        if raw is _UNCONVERTIBLE:
            return True, _optional_plain(value)  # values with no Python form
        if engine_value:
            # Construction markers are dropped as they always were for variables.
            return True, to_engine(strip_markers(raw) if self.runtime.constructs else raw)
        try:
            plain = raw if raw is True or raw is False else to_plain(raw)
        except Exception:  # noqa: BLE001
            return True, _optional_plain(value)
        if self.runtime.unwrap_optional and not raw_optional:
            return True, plain[0] if plain else None
        if self._literal and not state.exceeded:
            self._literal_result = (True, plain)
        return True, plain

    def evaluate(
        self,
        activation: Activation | None = None,
        *,
        budget: CostBudget | None = None,
        limit: int = PER_CALL_LIMIT,
    ) -> EvalResult:
        """Evaluate; never raises for bad input. The cost is charged to budget when given."""
        activation = activation or Activation()
        if activation.variables is not None and activation.variables.activation is None:
            activation.variables.activation = activation
        state = EvalState(limit=limit, budget=budget, resolver=activation.variables)
        token = runtime_state.CURRENT.set(state) if self.runtime.needs_state else None
        try:
            ok, value = self.run(activation, state)
        except Exception as exc:  # noqa: BLE001 - never let an engine or library bug escape
            ok, value = False, f"internal error while evaluating: {exc}"
        finally:
            if token is not None:
                runtime_state.CURRENT.reset(token)
        if budget is not None:
            budget.charge(state.cost)
        if not ok:
            return EvalResult(error=CelIssue(value, phase="runtime"), cost=state.cost)
        return EvalResult(value=value, cost=state.cost)


def _is_literal(checked: Any) -> bool:
    """True when the whole expression is one scalar literal ('text', 3, true)."""
    try:
        expr = checked.expr
        return expr.WhichOneof("expr_kind") == "const_expr" and expr.const_expr.WhichOneof(
            "constant_kind"
        ) in ("string_value", "int64_value", "uint64_value", "double_value", "bool_value")
    except Exception:  # noqa: BLE001 - not an AST we know: evaluate normally
        return False


def _optional_plain(value: Any) -> Any:
    """Best-effort plain form of values cel-expr-python cannot convert (optionals): None."""
    try:
        return to_plain(value.value())
    except Exception:  # noqa: BLE001
        return None
