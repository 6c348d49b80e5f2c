"""Compiled programs and their evaluation; variables in composition.py, activations in runtime/."""

from __future__ import annotations

from typing import Any

import cel_expr_python.cel as cel

from policyeditor.engine.cel.cost import PER_CALL_LIMIT
from policyeditor.engine.cel.issues import CelIssue
from policyeditor.engine.cel.issues import translate_runtime_message as _translate
from policyeditor.engine.cel.model import Context, EvalResult
from policyeditor.engine.cel.runtime import memory, selects
from policyeditor.engine.cel.runtime.activation import Activation
from policyeditor.engine.cel.runtime.functions import strip_markers
from policyeditor.engine.cel.runtime.state import CURRENT, CostBudget, CostExceeded, EvalState
from policyeditor.engine.cel.runtime.values import sanitize_input, to_engine, to_plain
from policyeditor.engine.cel.syntax import ast_pb

# cel-expr-python stops any evaluation after 10,000 comprehension iterations in total (cel-cpp's
# comprehension_max_iterations, not configurable from Python). Kubernetes has no such cap, so
# this is reported as what it is rather than as a Kubernetes cost error.
ENGINE_ITERATION_MESSAGE = (
    "evaluation stopped after 10000 comprehension iterations: a limit of the CEL engine used by "
    "policyeditor (cel-expr-python), not of Kubernetes"
)


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
        # The match-condition variant differs only in namespaceObject: programs that do not
        # read it share the other programs' activation.
        self._match_condition = (
            env.context == Context.MATCH_CONDITION and "namespaceObject__map" in names
        )
        self._reads_variables = bool(runtime.variables)
        self._may_authorize = bool(
            env.authorizer and ("authorizer" in names or "authorizer.requestResource" in names)
        )
        # A literal (a constant message, say) evaluates to the same value every time: the engine
        # runs it once, later evaluations only charge its cost.
        self._literal = _is_literal(runtime.checked) and not runtime.needs_state
        self._literal_result: tuple[bool, Any] | None = None
        self._base_cost = runtime.base_cost
        self._needs_state = runtime.needs_state
        self._constructs = runtime.constructs
        self._unwrap_optional = runtime.unwrap_optional
        self._engine_env = env.env
        self._variables = runtime.variables
        # Built on first use: the program for when every variable it reads is resolved.
        self._resolved_expression: Any = None
        # Built on first use: the program that selects fields as cel-go does (runtime/selects.py).
        self._select_expression: Any = None

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
            state.charge(self._base_cost)
        except CostExceeded as exc:
            return False, str(exc)
        if self._literal_result is not None and not engine_value and not raw_optional:
            return self._literal_result
        with_authorizer = self._may_authorize and activation.authorizer is not None
        is_error = False
        raw: Any = _UNCONVERTIBLE
        expression = self._expression
        resolver = None
        if self._reads_variables:
            resolver = state.resolver
            if resolver is not None and resolver.all_resolved(self._variables):
                # No helper call per read: the holders are filled (memoised reads cost nothing).
                expression = self._resolved_expression or self._resolved() or expression
        try:
            engine_activation = self._engine_activation(activation, with_authorizer, resolver)
            value = expression.eval(activation=engine_activation)
            # _inspect, inline: this runs for every expression evaluated.
            try:
                raw = value.plain_value()
            except Exception:  # noqa: BLE001 - optionals and other values with no Python form
                is_error = value.type() == _ERROR
            else:
                # Error values come back as their message text: only strings need the type.
                if type(raw) is str:
                    is_error = value.type() == _ERROR
            retry = is_error and "out of range for" in str(value.value())
        except Exception as exc:  # noqa: BLE001 - conversion failures of odd input: retry sanitized
            memory.stop_if_exhausted(exc, state)  # not retried: it would run out again
            retry = True
        if retry:
            failed, value = self._run_sanitized(activation, state, with_authorizer)
            if failed is not None:
                return False, failed
            is_error, raw = _inspect(value)
        if is_error and not state.exceeded and selects.failed_on_non_map(str(value.value())):
            rerun = self._run_with_selects(activation, state, with_authorizer, resolver)
            if rerun is not None:
                value = rerun
                is_error, raw = _inspect(value)
        if state.out_of_memory:
            memory.stop(state)
        if state.exceeded:
            return False, state.exceeded
        if is_error:
            # cel-expr-python also labels values it cannot name (optionals) ERROR.
            try:
                text = str(value.value())
                message = _translate(text)
            except Exception:  # noqa: BLE001
                return True, None
            memory.stop_if_exhausted(text, state)
            return False, message
        plain: Any  # any CEL value in its plain Python form
        if raw is True or raw is False:
            plain = raw
        elif raw is _UNCONVERTIBLE:
            return True, _optional_plain(value)  # values with no Python form
        elif engine_value:
            # Construction markers are dropped as they always were for variables.
            return True, to_engine(strip_markers(raw) if self._constructs else raw)
        else:
            try:
                plain = to_plain(raw)
            except Exception:  # noqa: BLE001
                return True, _optional_plain(value)
        if engine_value:
            return True, plain
        if self._unwrap_optional and not raw_optional:
            return True, plain[0] if plain else None
        if self._literal and not state.exceeded:
            self._literal_result = (True, plain)
        return True, plain

    def _engine_activation(
        self, activation: Activation, with_authorizer: bool, resolver: Any
    ) -> Any:
        """The engine's activation of `activation` for this program's environment."""
        return activation.engine_activation(
            self._engine_env,
            authorizer=with_authorizer,
            match_condition=self._match_condition,
            resolver=resolver,
        )

    def _run_with_selects(
        self, activation: Activation, state: EvalState, with_authorizer: bool, resolver: Any
    ) -> Any:
        """Evaluate again selecting fields as cel-go does: the value, or None if impossible.

        Only after the engine refused a selection from a value without fields: the result (a
        `no such key` error, or false for a presence test) is the one kube-apiserver gives.
        Costs charged while running (loops, library calls) are charged again by this run.
        """
        if self._select_expression is None:
            checked = selects.with_select_helpers(self.runtime.checked)
            if checked is None:
                return None
            try:
                self._select_expression = self._engine_env.deserialize(
                    ast_pb.checked_to_bytes(checked)
                )
            except Exception:  # noqa: BLE001 - keep the engine's own error
                return None
        token = CURRENT.set(state)
        try:
            engine_activation = self._engine_activation(activation, with_authorizer, resolver)
            return self._select_expression.eval(activation=engine_activation)
        except CostExceeded:
            return None
        except Exception as exc:  # noqa: BLE001 - keep the engine's own error
            memory.stop_if_exhausted(exc, state)
            return None
        finally:
            CURRENT.reset(token)

    def _resolved(self) -> Any:
        """The engine program of runtime.resolved_checked (None when there is none)."""
        checked = self.runtime.resolved_checked
        if checked is None:
            return None
        try:
            self._resolved_expression = self._engine_env.deserialize(
                ast_pb.checked_to_bytes(checked)
            )
        except Exception:  # noqa: BLE001 - keep the helper form, which always works
            self.runtime.resolved_checked = None
        return self._resolved_expression

    def _run_sanitized(
        self, activation: Activation, state: EvalState, with_authorizer: bool
    ) -> tuple[str | None, Any]:
        """The retry with sanitized input: (None, engine value) or (error message, None)."""
        # Integers beyond int64 are doubles in Kubernetes' JSON decoding; convert and retry
        # (kept off the hot path: most objects hold no such numbers).
        authorizer_value = request_resource = None
        if with_authorizer:
            from policyeditor.engine.cel import library_bridge

            authorizer_value, request_resource = library_bridge.authorizer_values(
                activation.authorizer, activation.request
            )
        data = activation.data(self.runtime.idents, authorizer_value, request_resource)
        if self._match_condition and "namespaceObject__map" in data:
            data["namespaceObject__map"] = None
        data = {k: sanitize_input(v) for k, v in data.items()}
        if self._reads_variables and state.resolver is not None:
            # The holders themselves (filled during this evaluation), not copies.
            data.update(state.resolver.holders)
        try:
            return None, self._expression.eval(data=data)
        except Exception as exc:  # noqa: BLE001 - unconvertible input is a runtime error
            memory.stop_if_exhausted(exc, state)
            if "Iteration budget exceeded" in str(exc):
                return ENGINE_ITERATION_MESSAGE, None
            return f"invalid input: {exc}", None

    def execute(
        self,
        activation: Activation,
        budget: CostBudget | None = None,
        limit: int = PER_CALL_LIMIT,
    ) -> tuple[bool, Any, int]:
        """evaluate() without the result objects: (ok, plain value or error message, cost)."""
        literal = self._literal_result
        if literal is not None:
            # What run() does for a literal, without the state: charge its cost, answer.
            cost = self._base_cost
            if cost <= limit and (budget is None or cost <= budget.remaining):
                if budget is not None:
                    budget.charge(cost)
                return True, literal[1], cost
        resolver = activation.variables
        if resolver is not None and resolver.activation is None:
            resolver.activation = activation
        state = EvalState(limit, budget, resolver)
        token = CURRENT.set(state) if self._needs_state else None
        try:
            ok, value = self.run(activation, state)
        except Exception as exc:  # noqa: BLE001 - never let an engine or library bug escape
            memory.stop_if_exhausted(exc, state)
            ok, value = False, f"internal error while evaluating: {exc}"
        finally:
            if token is not None:
                CURRENT.reset(token)
        if budget is not None:
            budget.charge(state.cost)
        return ok, value, state.cost

    def evaluate(
        self,
        activation: Activation | None = None,
        *,
        budget: CostBudget | None = None,
        limit: int = PER_CALL_LIMIT,
    ) -> EvalResult:
        """Evaluate; never raises for bad input. The cost is charged to budget when given."""
        ok, value, cost = self.execute(activation or Activation(), budget, limit)
        if not ok:
            return EvalResult(error=CelIssue(value, phase="runtime"), cost=cost)
        return EvalResult(value=value, cost=cost)


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
