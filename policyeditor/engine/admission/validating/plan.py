"""What a VAP's evaluation takes from the policy alone: its fields read and its CEL compiled once.

`plan_for()` keeps a plan per policy document in a dict the caller owns (EvalContext.plans): the
admission layer hands in one per prepared document set, whose documents are private copies that
nothing mutates, so a plan made for one request serves every later request of the same documents.
Compiling here rather than at each step changes nothing observable: compilation is pure and
cached per arguments, so a step gets the very Compiled object it would have looked up itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from policyeditor.engine.admission import cel_bindings
from policyeditor.engine.admission.common import PlanCache, as_list, compile_match_conditions
from policyeditor.engine.objects import spec_of


@dataclass(frozen=True)
class ValidationPlan:
    """A VAP's match conditions, variables, validations and audit annotations, compiled."""

    has_params: bool
    # (name, expression, compiled) per matchCondition, in order.
    match_conditions: tuple[tuple[str, str, cel_bindings.Compiled], ...]
    variables: cel_bindings.VariableSet
    validations: tuple[dict[str, Any], ...]  # each validation, {} for a malformed entry
    texts: tuple[tuple[str, str], ...]  # (expression, messageExpression) per validation
    programs: tuple[tuple[cel_bindings.Compiled, cel_bindings.Compiled | None], ...]
    # (key, valueExpression, compiled) per audit annotation, in order.
    annotations: tuple[tuple[str, str, cel_bindings.Compiled], ...]


def make_plan(policy: dict[str, Any], version: str) -> ValidationPlan:
    """The plan of one ValidatingAdmissionPolicy document for Kubernetes `version`."""
    spec = spec_of(policy)
    has_params = isinstance(spec.get("paramKind"), dict)
    variables = cel_bindings.compile_variables(
        [v for v in as_list(spec.get("variables")) if isinstance(v, dict)],
        version,
        has_params=has_params,
        mutating=False,
    )
    names, types = variables.names, variables.types
    validations = tuple(v if isinstance(v, dict) else {} for v in as_list(spec.get("validations")))
    texts = tuple(
        (str(v.get("expression") or ""), str(v.get("messageExpression") or "")) for v in validations
    )
    programs = cel_bindings.compile_validations(
        texts, version, has_params=has_params, variables=names, variable_types=types
    )
    annotations = []
    for annotation in as_list(spec.get("auditAnnotations")):
        annotation = annotation if isinstance(annotation, dict) else {}
        key = str(annotation.get("key") or "")
        expression = str(annotation.get("valueExpression") or "")
        compiled = cel_bindings.compile_one(
            expression.strip(),
            "auditAnnotation",
            version,
            has_params=has_params,
            variables=names,
            variable_types=types,
        )
        annotations.append((key, expression, compiled))
    return ValidationPlan(
        has_params=has_params,
        match_conditions=compile_match_conditions(
            as_list(spec.get("matchConditions")), version, has_params=has_params, mutating=False
        ),
        variables=variables,
        validations=validations,
        texts=texts,
        programs=programs,
        annotations=tuple(annotations),
    )


def plan_for(policy: dict[str, Any], version: str, plans: PlanCache) -> ValidationPlan:
    """The plan of `policy`, made once per (document, version) in `plans`."""
    # Keyed by identity: `plans` lives no longer than the documents it was given with, and the
    # entry keeps its document, so an id is never another document's while the entry exists.
    key = (id(policy), version)
    entry = plans.get(key)
    if entry is not None and entry[0] is policy and isinstance(entry[1], ValidationPlan):
        return entry[1]
    plan = make_plan(policy, version)
    plans[key] = (policy, plan)
    return plan
