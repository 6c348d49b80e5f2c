"""MutatingAdmissionPolicy evaluation: invocations, mutations, reinvocation.

Follows kubernetes/kubernetes staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/
mutating/dispatcher.go, dispatcher.dispatchInvocations and dispatcher.dispatchOne, with
reinvocationcontext.go.

Each matching (policy, binding, param) is an invocation; its mutations run in order against the
current object (JSONPatch: evanphx v4 + strict decoding; ApplyConfiguration: structured merge),
a failing mutation is recorded and the next one still runs, and IfNeeded invocations run once more
when a later invocation changed the object. Each mutation's result is defaulted again before
the next mutation sees it (when the evaluation defaults), as
kubernetes/kubernetes staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/mutating/dispatcher.go
runs the object defaulter after every patcher.Patch.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, replace
from typing import Any

from policyeditor.engine.admission import cel_bindings
from policyeditor.engine.admission.common import (
    EvalContext,
    as_list,
    namespace_not_found,
    record_variables,
    run_match_conditions,
)
from policyeditor.engine.admission.matching import MatchResult, match_binding, match_policy
from policyeditor.engine.admission.mutating.mutation import (
    INTERNAL_PREFIX,
    apply_mutation,
    crd_schema,
    patch_ops,
    text_diff,
)
from policyeditor.engine.admission.params import collect_params, param_label
from policyeditor.engine.admission.request import AdmissionRequest
from policyeditor.engine.admission.result import PolicyOutcome, Step
from policyeditor.engine.defaulting import default_object
from policyeditor.engine.objects import name_of, spec_of

KIND = "MutatingAdmissionPolicy"


@dataclass
class Invocation:
    """One (policy, binding, param) to run, with its outcome records for each pass."""

    policy: dict[str, Any]
    binding: dict[str, Any] | None
    param: Any
    request: AdmissionRequest
    key: tuple[str, str, str]
    outcomes: list[PolicyOutcome] = field(default_factory=list)

    @property
    def reinvocation(self) -> str:
        """The policy's reinvocationPolicy (Never unless IfNeeded)."""
        return str(spec_of(self.policy).get("reinvocationPolicy") or "Never")


def _miss(
    match: MatchResult, policy: dict[str, Any], binding: dict[str, Any] | None
) -> PolicyOutcome | None:
    """The record of a policy (binding None) or binding that errs or does not match, else None."""
    if match.error:
        return _config_error(policy, binding, match.error, binding is not None)
    if not match.matched:
        return _outcome(policy, binding, match.reason)
    return None


def _outcome(
    policy: dict[str, Any], binding: dict[str, Any] | None, reason: str, **fields: Any
) -> PolicyOutcome:
    """The outcome of a (policy, binding) pair that stopped before evaluation, and why."""
    return PolicyOutcome(
        kind=KIND,
        policy=name_of(policy),
        binding=name_of(binding) if binding else None,
        reason=reason,
        **fields,
    )


def deny_text(policy: str, binding: str | None, message: str) -> str:
    """The text of a MAP error as PolicyError.Error() formats it."""
    if binding:
        return f"policy '{policy}' with binding '{binding}' denied request: {message}"
    return f'policy "{policy}" denied request: {message}'


def _mutation_fields(mutation: dict[str, Any]) -> tuple[str, str]:
    patch_type = str(mutation.get("patchType") or "")
    holder = (
        mutation.get("jsonPatch")
        if patch_type == "JSONPatch"
        else mutation.get("applyConfiguration")
    )
    expression = str(holder.get("expression") or "") if isinstance(holder, dict) else ""
    return patch_type, expression


def _expected_type(patch_type: str) -> str:
    return "list(JSONPatch)" if patch_type == "JSONPatch" else "Object"


def run_invocation(
    inv: Invocation, current: dict[str, Any] | None, ctx: EvalContext, pass_number: int
) -> tuple[dict[str, Any] | None, PolicyOutcome]:
    """Run one invocation's match conditions and mutations; returns the new object and record."""
    spec = spec_of(inv.policy)
    failure_policy = str(spec.get("failurePolicy") or "Fail")
    outcome = PolicyOutcome(
        kind=KIND,
        policy=name_of(inv.policy),
        binding=name_of(inv.binding) if inv.binding else None,
        param=param_label(inv.param),
        matched=True,
        failure_policy=failure_policy,
        invocation=pass_number,
    )
    inv.outcomes.append(outcome)
    has_params = isinstance(spec.get("paramKind"), dict)
    request = inv.request
    base = cel_bindings.bindings_for(
        request,
        params=inv.param,
        namespace_object=ctx.namespace_object,
        authorizer=ctx.authorizer,
        obj=current,
        use_request_object=False,
    )
    state, why = run_match_conditions(
        as_list(spec.get("matchConditions")),
        base,
        ctx.version,
        has_params=has_params,
        mutating=True,
        failure_policy=failure_policy,
        steps=outcome.match_conditions,
    )
    if state == "skip":
        outcome.result, outcome.reason = "skip", why
        return current, outcome
    if state == "error":
        _record_error(outcome, why)
        return current, outcome
    variables = cel_bindings.compile_variables(
        [v for v in as_list(spec.get("variables")) if isinstance(v, dict)],
        ctx.version,
        has_params=has_params,
        mutating=True,
    )
    evaluators = []
    for index, mutation in enumerate(as_list(spec.get("mutations"))):
        mutation = mutation if isinstance(mutation, dict) else {}
        patch_type, expression = _mutation_fields(mutation)
        step = Step(kind="mutation", index=index, expression=expression, patch_type=patch_type)
        outcome.mutations.append(step)
        if current is None:
            step.status, step.reason = "skipped", "no object to mutate"
            continue
        if patch_type not in ("JSONPatch", "ApplyConfiguration"):
            step.status, step.error = "error", f'unsupported patchType "{patch_type}"'
            outcome.errors.append(step.error)
            continue
        compiled = cel_bindings.compile_one(
            expression,
            "mutation",
            ctx.version,
            has_params=has_params,
            variables=variables.names,
            variable_types=variables.types,
            mutating=True,
        )
        if compiled.error.startswith("compilation error: "):
            # The patchers return the compile errors themselves (errors.Join), unprefixed.
            compiled = cel_bindings.Compiled(
                expression, error=compiled.error[len("compilation error: ") :]
            )
        expected = _expected_type(patch_type)
        if compiled.ok and compiled.output_type not in (expected, "dyn"):
            compiled = cel_bindings.Compiled(
                expression,
                error=f"must evaluate to {expected} but got {compiled.output_type}",
            )
        # Each mutation gets a fresh activation (variables re-evaluated, the new object
        # converted anew) and a 10M budget.
        activation = replace(base, object=current, engine_cache={})
        evaluator = cel_bindings.Evaluator(activation, variables, cel_bindings.RUNTIME_BUDGET)
        evaluators.append(evaluator)
        ok, value, cost = evaluator.run(compiled)
        step.cost = cost
        if not ok:
            text = str(value)
            marker = "resulted in error: type mismatch: "
            if marker in text:
                # The patchers check Object type names after evaluation and report them bare.
                text = "type mismatch: " + text.split(marker, 1)[1]
            step.status, step.error = "error", text
            outcome.errors.append(text)
            continue
        step.patch = (
            patch_ops(value) if patch_type == "JSONPatch" and isinstance(value, list) else value
        )
        new, error = apply_mutation(
            patch_type, value, current, ctx.version, crd_schema(ctx.resources, current)
        )
        if error.startswith(INTERNAL_PREFIX):
            step.status, step.error = "error", error
            outcome.errors.append(error)
            outcome.result, outcome.message = "error", error
            outcome.denials.append(
                {
                    "message": error,
                    "reason": "InternalError",
                    "fatal": True,
                    "code": 500,
                    "error": True,
                }
            )
            return current, outcome
        if error:
            step.status, step.error = "error", error
            outcome.errors.append(error)
            continue
        if ctx.defaulting:
            defaulted = default_object(new, ctx.version)
            new, step.defaulted = defaulted.object, defaulted.paths
        step.diff = text_diff(current, new)
        step.status = "applied" if new != current else "unchanged"
        if new == current and patch_type == "JSONPatch":
            step.reason = "no change (a failed test operation cancels the whole patch)"
        current = new
    record_variables(outcome, variables, evaluators)
    if outcome.errors:
        # Every failed mutation is its own PolicyError; the first answers the request.
        for error in outcome.errors:
            _record_error(outcome, error, already_listed=True)
    elif any(step.status == "applied" for step in outcome.mutations):
        outcome.result = "allow"
        outcome.reason = "mutated"
    else:
        outcome.result = "allow"
        outcome.reason = "no change"
    return current, outcome


def _record_error(
    outcome: PolicyOutcome, message: str, *, already_listed: bool = False, reason: str = "Invalid"
) -> None:
    if not already_listed:
        outcome.errors.append(message)
    outcome.result = "error"
    if outcome.failure_policy == "Ignore":
        outcome.reason = f"error ignored (failurePolicy Ignore): {message}"
        return
    full = deny_text(outcome.policy, outcome.binding, message)
    # MAP answers with the PolicyError text itself (no "<resource> is forbidden:" prefix); the
    # status reason is the error's (Invalid for mutations, Forbidden for configuration errors).
    outcome.denials.append({"message": full, "reason": reason, "mutating": True, "error": True})
    outcome.message = outcome.message or full


def _config_error(
    policy: dict[str, Any], binding: dict[str, Any] | None, message: str, binding_level: bool
) -> PolicyOutcome:
    spec = spec_of(policy)
    outcome = PolicyOutcome(
        kind=KIND,
        policy=name_of(policy),
        binding=name_of(binding) if binding else None,
        matched=True,
        failure_policy=str(spec.get("failurePolicy") or "Fail"),
    )
    prefix = "failed to configure binding" if binding_level else "failed to configure policy"
    _record_error(outcome, f"{prefix}: {message}", reason="Forbidden")
    return outcome


def collect_invocations(
    policies: list[tuple[dict[str, Any], list[dict[str, Any] | None]]], ctx: EvalContext
) -> tuple[list[Invocation], list[PolicyOutcome]]:
    """Invocations in order, plus records for misses and configuration errors."""
    invocations: list[Invocation] = []
    records: list[PolicyOutcome] = []
    for policy, bindings in policies:
        request = ctx.request
        if ctx.check_match:
            matched = match_policy(policy, ctx.request, ctx.namespaces, k8s_version=ctx.version)
            miss = _miss(matched, policy, None)
            if miss is not None:
                records.append(miss)
                continue
            if matched.equivalent and matched.kind and matched.resource:
                request = ctx.request.with_match(matched.kind, matched.resource)
        for binding in bindings or [None]:
            if ctx.check_match and binding is not None:
                bound = match_binding(binding, ctx.request, ctx.namespaces, k8s_version=ctx.version)
                miss = _miss(bound, policy, binding)
                if miss is not None:
                    records.append(miss)
                    continue
            selection = collect_params(
                policy, binding, request, ctx.resources, inline=ctx.params, k8s_version=ctx.version
            )
            if selection.error:
                records.append(_config_error(policy, binding, selection.error, True))
                continue
            if not selection.params:
                records.append(
                    _outcome(policy, binding, selection.note, matched=True, result="skip")
                )
                continue
            for param in selection.params:
                key = (
                    name_of(policy),
                    name_of(binding) if binding else "",
                    param_label(param) or "",
                )
                invocations.append(Invocation(policy, binding, param, request, key))
    return invocations, records


def evaluate_mutations(
    policies: list[tuple[dict[str, Any], list[dict[str, Any] | None]]], ctx: EvalContext
) -> tuple[dict[str, Any] | None, list[PolicyOutcome]]:
    """Run every MAP invocation (plus one reinvocation pass for IfNeeded); the final object."""
    invocations, records = collect_invocations(policies, ctx)
    if invocations and ctx.namespace_error:
        first = invocations[0]
        outcome = PolicyOutcome(
            kind=KIND, policy=first.key[0], binding=first.key[1] or None, matched=True
        )
        namespace_not_found(outcome, ctx.namespace_error)
        return ctx.request.object, [*records, outcome]
    state = _Dispatch(current=copy.deepcopy(ctx.request.object), outcomes=list(records))
    try:
        for inv in invocations:
            state.run(inv, ctx, 1)
        # dispatchInvocations ends a pass by promoting the rest of the previously invoked
        # IfNeeded invocations when any patch went through (lastVersionedAttr.Dirty); the
        # admission chain then runs one reinvocation pass.
        if state.dirty:
            state.reinvoke |= state.previous
            state.previous = set()
        if state.reinvoke:
            for inv in invocations:
                if inv.key in state.reinvoke:
                    state.run(inv, ctx, 2)
    except _Aborted:
        pass
    return state.current, state.outcomes


class _Aborted(Exception):
    """A status error stopped the mutating dispatch (the request fails as a whole)."""


@dataclass
class _Dispatch:
    """The running state of mutating dispatch: object, records and reinvocation bookkeeping."""

    current: dict[str, Any] | None
    outcomes: list[PolicyOutcome]
    previous: set[tuple[str, str, str]] = field(default_factory=set)
    reinvoke: set[tuple[str, str, str]] = field(default_factory=set)
    dirty: bool = False

    def run(self, inv: Invocation, ctx: EvalContext, pass_number: int) -> None:
        """Run one invocation and update the reinvocation sets as the dispatcher does."""
        before = self.current
        self.current, outcome = run_invocation(inv, self.current, ctx, pass_number)
        self.outcomes.append(outcome)
        if any(d.get("fatal") for d in outcome.denials):
            raise _Aborted
        if not outcome.mutations:
            return  # stopped at its match conditions: not an invocation that counts
        if any(step.status in ("applied", "unchanged") for step in outcome.mutations):
            self.dirty = True  # versionedAttr.Dirty: some patch went through, changed or not
        if self.current != before:
            # A change asks every earlier IfNeeded invocation to run again.
            self.reinvoke |= self.previous
            self.previous = set()
        if inv.reinvocation == "IfNeeded":
            self.previous.add(inv.key)
