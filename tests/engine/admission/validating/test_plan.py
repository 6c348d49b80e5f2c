"""A VAP's plan: its fields read and its expressions compiled once per document."""

from __future__ import annotations

from policyeditor.engine.admission.validating.plan import make_plan, plan_for
from policyeditor.engine.versions import DEFAULT_VERSION


def policy(**spec):
    return {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": "p"},
        "spec": spec,
    }


def test_a_plan_holds_every_expression_compiled_in_order():
    plan = make_plan(
        policy(
            paramKind={"apiVersion": "v1", "kind": "ConfigMap"},
            matchConditions=[{"name": "m", "expression": " true "}],
            variables=[{"name": "v", "expression": "1"}],
            validations=[{"expression": "variables.v == 1", "messageExpression": "'x'"}],
            auditAnnotations=[{"key": "k", "valueExpression": "'a'"}],
        ),
        DEFAULT_VERSION,
    )
    assert plan.has_params
    ((name, expression, condition),) = plan.match_conditions
    assert (name, expression, condition.ok) == ("m", " true ", True)
    assert plan.variables.names == ("v",)
    assert plan.texts == (("variables.v == 1", "'x'"),)
    ((check, message),) = plan.programs
    assert check.ok and message is not None and message.ok
    ((key, value_expression, annotation),) = plan.annotations
    assert (key, value_expression, annotation.ok) == ("k", "'a'", True)


def test_malformed_entries_are_planned_as_empty_ones():
    plan = make_plan(
        policy(matchConditions=["x"], validations=[7], auditAnnotations=[None]), DEFAULT_VERSION
    )
    assert [(n, e) for n, e, _ in plan.match_conditions] == [("", "")]
    assert plan.validations == ({},)
    assert plan.texts == (("", ""),)
    assert plan.programs[0][1] is None
    assert [(k, e) for k, e, _ in plan.annotations] == [("", "")]
    assert not plan.annotations[0][2].ok


def test_a_document_is_planned_once_per_version():
    plans: dict = {}
    doc = policy(validations=[{"expression": "true"}])
    first = plan_for(doc, DEFAULT_VERSION, plans)
    assert plan_for(doc, DEFAULT_VERSION, plans) is first
    assert plan_for(doc, "1.30", plans) is not first


def test_another_document_with_a_reused_id_gets_its_own_plan():
    doc = policy(validations=[{"expression": "true"}])
    other = policy(validations=[{"expression": "false"}])
    plans = {(id(other), DEFAULT_VERSION): (doc, make_plan(doc, DEFAULT_VERSION))}
    assert plan_for(other, DEFAULT_VERSION, plans).texts == (("false", ""),)
