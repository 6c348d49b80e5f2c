"""What VAP and MAP evaluation share: the request context, match conditions, variable records."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from policyeditor.engine.admission import cel_bindings
from policyeditor.engine.admission.matching import NamespaceSource
from policyeditor.engine.admission.params import MISSING
from policyeditor.engine.admission.request import AdmissionRequest
from policyeditor.engine.admission.result import PolicyOutcome, Step
from policyeditor.engine.versions import DEFAULT_VERSION


@dataclass
class EvalContext:
    """Everything shared by the policies evaluated for one request."""

    request: AdmissionRequest
    version: str = DEFAULT_VERSION
    resources: list[dict[str, Any]] = field(default_factory=list)
    namespaces: NamespaceSource = field(default_factory=NamespaceSource)
    namespace_object: dict[str, Any] | None = (
        None  # what CEL's namespaceObject is (None when cluster-scoped)
    )
    authorizer: Any = None
    params: Any = MISSING
    check_match: bool = True
    # Set when the request's namespace cannot be found: the dispatcher's GET fails the whole
    # request with NotFound as soon as a (policy, binding) matches, whatever the failurePolicy.
    namespace_error: str = ""
    # Per-policy plans (validating.plan.plan_for), shared by the requests of one document set.
    plans: PlanCache = field(default_factory=dict)
    # Whether objects are defaulted as the API server decodes them (before admission and after
    # every mutation).
    defaulting: bool = True


# validating.plan.plan_for's plans: (id of a policy document, version) -> (that document, its
# ValidationPlan). `object`, because validating.plan imports this module; plan_for narrows it.
PlanCache = dict[tuple[int, str], tuple[dict[str, Any], object]]


def namespace_not_found(outcome: PolicyOutcome, message: str) -> None:
    """Mark an outcome as the NotFound failure that aborts the request."""
    outcome.result = "error"
    outcome.errors.append(message)
    outcome.message = message
    outcome.denials.append({"message": message, "reason": "NotFound", "fatal": True, "error": True})


def as_list(value: Any) -> list[Any]:
    """A list field's items; anything that is not a list (malformed input) counts as empty."""
    return value if isinstance(value, list) else []


def aggregate(errors: list[str]) -> str:
    """utilerrors.NewAggregate(...).Error(): one error bare, several in brackets."""
    return errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"


def compile_match_conditions(
    conditions: list[Any], version: str, *, has_params: bool, mutating: bool
) -> tuple[tuple[str, str, cel_bindings.Compiled], ...]:
    """(name, expression, compiled) of each matchCondition (a malformed entry counts as {})."""
    compiled = []
    for condition in conditions:
        condition = condition if isinstance(condition, dict) else {}
        name = str(condition.get("name") or "")
        expression = str(condition.get("expression") or "")
        program = cel_bindings.compile_one(
            expression.strip(), "matchCondition", version, has_params=has_params, mutating=mutating
        )
        compiled.append((name, expression, program))
    return tuple(compiled)


def run_match_conditions(
    conditions: list[dict[str, Any]],
    bindings: cel_bindings.Activation,
    version: str,
    *,
    has_params: bool,
    mutating: bool,
    failure_policy: str,
    steps: list[Step],
    compiled: tuple[tuple[str, str, cel_bindings.Compiled], ...] | None = None,
) -> tuple[str, str]:
    """Evaluate matchConditions: ("match"|"skip"|"error", why/error text)."""
    # As kubernetes/kubernetes staging/src/k8s.io/apiserver/pkg/admission/plugin/webhook/
    # matchconditions/matcher.go, matcher.Match: any false skips, else an error decides.
    # compiled: compile_match_conditions(conditions, ...) when the caller has it already.
    if compiled is None:
        compiled = compile_match_conditions(
            conditions, version, has_params=has_params, mutating=mutating
        )
    if not compiled:
        return "match", ""
    # Match conditions see no variables, and namespaceObject as null: the CEL layer binds null
    # for match-condition programs that read it, so the others share the validations' activation.
    evaluator = cel_bindings.Evaluator(bindings, None, cel_bindings.MATCH_CONDITIONS_BUDGET)
    errors: list[str] = []
    false_name = ""
    for index, (name, expression, program) in enumerate(compiled):
        step = Step(kind="matchCondition", index=index, name=name, expression=expression)
        steps.append(step)
        ok, value, cost = evaluator.run(program)
        step.cost = cost
        if not ok:
            if value == cel_bindings.BUDGET_MESSAGE:
                step.status, step.error = "error", value
                return ("skip", value) if failure_policy == "Ignore" else ("error", value)
            step.status, step.error = "error", str(value)
            errors.append(str(value))
            continue
        step.value = value
        if value is True:
            step.status = "true"
        else:
            step.status = "false"
            if not false_name:
                false_name = name
    if false_name:
        return "skip", f"matchCondition '{false_name}' is false"
    if errors:
        if failure_policy == "Ignore":
            return "skip", "matchCondition error ignored (failurePolicy Ignore): " + aggregate(
                errors
            )
        return "error", aggregate(errors)
    return "match", ""


def record_variables(
    outcome: PolicyOutcome,
    variables: cel_bindings.VariableSet,
    evaluators: list[cel_bindings.Evaluator],
) -> None:
    """Show each variable once: its value from the first pass that computed it; ends the passes."""
    seen: dict[str, tuple[bool, Any]] = {}
    for evaluator in evaluators:
        if len(seen) < len(variables.names):  # else later passes' values would not be shown
            for name, result in evaluator.variable_values().items():
                seen.setdefault(name, result)
        evaluator.release()  # the last thing a pass is asked for
    for index, name in enumerate(variables.names):
        step = Step(
            kind="variable", index=index, name=name, expression=variables.expressions.get(name, "")
        )
        if name in seen:
            ok, value = seen[name]
            if ok:
                step.status, step.value = "ok", value
            else:
                step.status, step.error = "error", str(value)
        else:
            step.status = "unused"
        outcome.variables.append(step)
