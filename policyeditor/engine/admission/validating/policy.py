"""ValidatingAdmissionPolicy evaluation: every step recorded in a PolicyOutcome.

Follows kubernetes/kubernetes staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/
validating/validator.go, validator.Validate, and dispatcher.go.

Per matching (policy, binding, param): matchConditions, validations (one shared activation and
budget), messageExpressions (second pass, leftover budget), auditAnnotations (third pass, fresh
budget), then the binding's validationActions fan each Deny decision out to denial, warning and
audit entry. Configuration errors (matching, params) bypass the actions: Fail denies, Ignore drops.
"""

from __future__ import annotations

from typing import Any

from policyeditor.engine.admission import cel_bindings
from policyeditor.engine.admission.common import (
    EvalContext,
    as_list,
    namespace_not_found,
    record_variables,
    run_match_conditions,
)
from policyeditor.engine.admission.matching import match_binding, match_policy
from policyeditor.engine.admission.params import collect_params, param_label
from policyeditor.engine.admission.request import AdmissionRequest
from policyeditor.engine.admission.result import PolicyOutcome, Step
from policyeditor.engine.admission.validating.actions import (
    KIND,
    VALIDATION_FAILURE_KEY,
    Decision,
    apply_actions,
    audit_annotations,
    config_error,
    deny_text,
    truncate,
)
from policyeditor.engine.admission.validating.plan import ValidationPlan, make_plan, plan_for
from policyeditor.engine.cel.runtime.functions import cel_type_name
from policyeditor.engine.objects import name_of, spec_of

# Part of this module's interface (admission/evaluation.py and the CLI read them from here).
__all__ = [
    "KIND",
    "VALIDATION_FAILURE_KEY",
    "EvalContext",
    "audit_annotations",
    "deny_text",
    "evaluate_policy",
    "run_match_conditions",
    "validate",
]

MAX_MESSAGE_BYTES = 5 * 1024
MAX_AUDIT_VALUE_BYTES = 10 * 1024


def _action_for(failure_policy: str) -> str:
    return "admit" if failure_policy == "Ignore" else "deny"


def _pick_message(validation: dict[str, Any], message_value: Any, message_ok: bool) -> str:
    """The denial message: messageExpression, else message, else `failed expression: ...`."""
    if message_ok and isinstance(message_value, str):
        text = message_value.strip()
        if text and len(text.encode()) <= MAX_MESSAGE_BYTES and "\n" not in text:
            return text
    message = str(validation.get("message") or "").strip()
    if message:
        return message
    return f"failed expression: {str(validation.get('expression') or '').strip()}"


def validate(
    policy: dict[str, Any],
    bindings: cel_bindings.Activation,
    version: str,
    outcome: PolicyOutcome,
    plan: ValidationPlan | None = None,
) -> tuple[list[Decision], list[tuple[str, str, str]]]:
    """Validator.Validate after match conditions: decisions and audit annotation results."""
    # Audit annotation results are (key, action publish|exclude|error, value or error text).
    # Only decisions that can change the answer are returned: an admit decision has no effect.
    if plan is None:
        plan = make_plan(policy, version)
    failure_policy = outcome.failure_policy
    variables = plan.variables
    validations = plan.validations
    texts = plan.texts
    programs = plan.programs

    # Pass 1: every validation against one activation and the 10M budget.
    first = cel_bindings.Evaluator(bindings, variables, cel_bindings.RUNTIME_BUDGET)
    results: list[tuple[bool, Any]] = []
    for index, (expression, message_expression) in enumerate(texts):
        step = Step("validation", index, expression, message_expression=message_expression)
        outcome.validations.append(step)
        ok, value, cost = first.run(programs[index][0])
        step.cost = cost
        if not ok and value == cel_bindings.BUDGET_MESSAGE:
            step.status, step.error = "error", value
            record_variables(outcome, variables, [first])
            return [Decision(_action_for(failure_policy), "error", cel_bindings.BUDGET_MESSAGE)], []
        results.append((ok, value))

    # Pass 2: every messageExpression (eagerly), with what is left of the budget.
    second = cel_bindings.Evaluator(bindings, variables, None, with_authorizer=False)
    second.budget = first.budget
    message_results: list[tuple[bool, Any] | None] = []
    message_pass_error = ""
    for index, (_, message) in enumerate(programs):
        if message is None:
            message_results.append(None)
            continue
        ok, value, cost = second.run(message)
        step = outcome.validations[index]
        step.cost += cost
        if ok:
            step.message_expression_value = value
        else:
            step.message_expression_error = str(value)
            if value == cel_bindings.BUDGET_MESSAGE:
                message_pass_error = value
                break
        message_results.append((ok, value))

    decisions: list[Decision] = []
    for index, validation in enumerate(validations):
        step = outcome.validations[index]
        ok, value = results[index]
        if not ok:
            decision = Decision(_action_for(failure_policy), "error", str(value), index=index)
            step.status, step.error = "error", str(value)
        elif message_pass_error:
            # The whole messageExpression pass failed: even passing validations become errors.
            decision = Decision(
                _action_for(failure_policy),
                "error",
                f"failed messageExpression: {message_pass_error}",
                index=index,
            )
            step.status, step.error = "error", decision.message
        elif value is not True:
            message_result = message_results[index] if index < len(message_results) else None
            m_ok, m_value = message_result if message_result else (False, None)
            reason = str(validation.get("reason") or "Invalid")
            decision = Decision(
                "deny", "deny", _pick_message(validation, m_value, m_ok), reason, index
            )
            step.status, step.value, step.message, step.reason = (
                "fail",
                value,
                decision.message,
                reason,
            )
        else:
            step.status, step.value = "pass", True
            continue
        decisions.append(decision)

    # Pass 3: audit annotations, fresh budget; compiled with authorizer but run without it.
    if not plan.annotations:
        record_variables(outcome, variables, [first, second])
        return decisions, []
    third = cel_bindings.Evaluator(
        bindings, variables, cel_bindings.RUNTIME_BUDGET, with_authorizer=False
    )
    audits: list[tuple[str, str, str]] = []
    for index, (key, expression, compiled) in enumerate(plan.annotations):
        step = Step(kind="auditAnnotation", index=index, name=key, expression=expression)
        outcome.audit_annotations.append(step)
        ok, value, cost = third.run(compiled)
        step.cost = cost
        if not ok:
            if value == cel_bindings.BUDGET_MESSAGE:
                step.status, step.error = "error", value
                record_variables(outcome, variables, [first, second, third])
                return [Decision(_action_for(failure_policy), "error", value)], []
            step.status, step.error = "error", str(value)
            audits.append((key, "error", str(value)))
        elif value is None:
            step.status = "excluded"
            audits.append((key, "exclude", ""))
        elif isinstance(value, str):
            text = value.strip()
            step.value = text
            if not text:
                step.status = "excluded"
                audits.append((key, "exclude", ""))
            else:
                step.status = "ok"
                audits.append((key, "publish", truncate(text, MAX_AUDIT_VALUE_BYTES)))
        else:
            unsupported = (
                f"valueExpression '{expression}' resulted in unsupported return type: "
                f"{cel_type_name(value)}. Return type must be either string or null."
            )
            step.status, step.error = "error", unsupported
            audits.append((key, "error", unsupported))
    record_variables(outcome, variables, [first, second, third])
    return decisions, audits


def evaluate_policy(
    policy: dict[str, Any], bindings: list[dict[str, Any] | None], ctx: EvalContext
) -> list[PolicyOutcome]:
    """All outcomes of one VAP for a request: one per (binding, param), or one for a miss."""
    spec = spec_of(policy)
    name = name_of(policy)
    failure_policy = str(spec.get("failurePolicy") or "Fail")
    base = PolicyOutcome(kind=KIND, policy=name, failure_policy=failure_policy)
    if failure_policy not in ("Fail", "Ignore"):
        base.result = "error"
        base.errors.append(f"unrecognized failure policy: '{failure_policy}'")
        text = deny_text(name, None, f"unrecognized failure policy: '{failure_policy}'")
        base.denials.append({"message": text, "reason": "Invalid", "error": True})
        base.message = base.denials[0]["message"]
        return [base]
    if ctx.check_match:
        matched = match_policy(policy, ctx.request, ctx.namespaces, k8s_version=ctx.version)
        if matched.error:
            base.matched = True
            config_error(base, matched.error, binding_level=False)
            return [base]
        if not matched.matched:
            base.reason = matched.reason
            return [base]
        request = ctx.request
        if matched.equivalent and matched.kind and matched.resource:
            request = ctx.request.with_match(matched.kind, matched.resource)
        base.matched_kind, base.matched_resource = matched.kind, matched.resource
    else:
        request = ctx.request
    outcomes: list[PolicyOutcome] = []
    for binding in bindings or [None]:
        outcomes.extend(_evaluate_binding(policy, binding, request, ctx, base))
    return outcomes


def _evaluate_binding(
    policy: dict[str, Any],
    binding: dict[str, Any] | None,
    request: AdmissionRequest,
    ctx: EvalContext,
    base: PolicyOutcome,
) -> list[PolicyOutcome]:
    spec = spec_of(policy)
    bspec = spec_of(binding)
    actions = [str(a) for a in as_list(bspec.get("validationActions"))] if binding else ["Deny"]

    def fresh(param: Any = None) -> PolicyOutcome:
        return PolicyOutcome(
            kind=KIND,
            policy=base.policy,
            binding=name_of(binding) if binding else None,
            param=param_label(param),
            matched=True,
            failure_policy=base.failure_policy,
            actions=list(actions),
            matched_kind=base.matched_kind,
            matched_resource=base.matched_resource,
        )

    if ctx.check_match and binding is not None:
        bound = match_binding(binding, ctx.request, ctx.namespaces, k8s_version=ctx.version)
        if bound.error:
            outcome = fresh()
            config_error(outcome, bound.error, binding_level=True)
            return [outcome]
        if not bound.matched:
            outcome = fresh()
            outcome.matched = False
            outcome.reason = bound.reason
            return [outcome]
    selection = collect_params(
        policy, binding, request, ctx.resources, inline=ctx.params, k8s_version=ctx.version
    )
    if selection.error:
        outcome = fresh()
        config_error(outcome, selection.error, binding_level=True)
        return [outcome]
    if ctx.namespace_error:
        outcome = fresh()
        namespace_not_found(outcome, ctx.namespace_error)
        return [outcome]
    if not selection.params:
        outcome = fresh()
        outcome.result = "skip"
        outcome.reason = selection.note
        return [outcome]
    plan = plan_for(policy, ctx.version, ctx.plans)
    outcomes = []
    for param in selection.params:
        outcome = fresh(param)
        outcomes.append(outcome)
        bindings = cel_bindings.bindings_for(
            request, params=param, namespace_object=ctx.namespace_object, authorizer=ctx.authorizer
        )
        state, why = run_match_conditions(
            as_list(spec.get("matchConditions")),
            bindings,
            ctx.version,
            has_params=plan.has_params,
            mutating=False,
            failure_policy=base.failure_policy,
            steps=outcome.match_conditions,
            compiled=plan.match_conditions,
        )
        if state == "skip":
            outcome.result = "skip"
            outcome.reason = why
            continue
        if state == "error":
            apply_actions(outcome, [Decision(_action_for(base.failure_policy), "error", why)], [])
            continue
        decisions, audits = validate(policy, bindings, ctx.version, outcome, plan)
        apply_actions(outcome, decisions, audits)
    return outcomes
