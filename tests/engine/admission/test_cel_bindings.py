"""The admission plugins' view of CEL: compiled validations, evaluators over shared activations."""

from __future__ import annotations

from policyeditor.engine.admission import cel_bindings
from policyeditor.engine.admission.request import AdmissionRequest


def compile_pairs(*pairs):
    return cel_bindings.compile_validations(
        tuple(pairs), "1.37", has_params=False, variables=(), variable_types=()
    )


def test_the_validations_of_a_policy_compile_once_for_the_same_texts():
    first = compile_pairs(("object.x == 1", "'x is ' + string(object.x)"), ("true", ""))
    again = compile_pairs(("object.x == 1", "'x is ' + string(object.x)"), ("true", ""))
    assert again is first
    assert first[0][0].ok and first[0][1].ok
    assert first[1][1] is None  # no messageExpression: nothing to run


def test_a_validation_that_does_not_compile_carries_the_runtime_error_text():
    ((check, _),) = compile_pairs(("object.x ==", ""))
    assert not check.ok
    assert check.error.startswith("compilation error: compilation failed: ")


def test_evaluators_of_one_binding_share_the_engine_activations():
    request = AdmissionRequest.build(object={"kind": "ConfigMap", "metadata": {"name": "a"}})
    bindings = cel_bindings.bindings_for(request)
    ((check, _),) = compile_pairs(("object.metadata.name == 'a'", ""))
    first = cel_bindings.Evaluator(bindings, None, cel_bindings.RUNTIME_BUDGET)
    second = cel_bindings.Evaluator(
        bindings, None, cel_bindings.RUNTIME_BUDGET, with_authorizer=False
    )
    assert first.run(check)[:2] == (True, True)
    assert second.run(check)[:2] == (True, True)
    assert len(bindings.engine_cache) == 1


def test_a_literal_message_is_free_until_the_budget_is_overdrawn():
    request = AdmissionRequest.build(object={"items": list(range(50))})
    bindings = cel_bindings.bindings_for(request)
    ((loop, message),) = compile_pairs(("object.items.all(i, i >= 0)", "'constant'"))
    evaluator = cel_bindings.Evaluator(bindings, None, 60)
    assert evaluator.run(message) == (True, "constant", 0)
    ok, value, _ = evaluator.run(loop)
    assert not ok and value == cel_bindings.BUDGET_MESSAGE
    # As for any expression: nothing more runs once the shared budget is overdrawn.
    assert evaluator.run(message) == (False, cel_bindings.BUDGET_MESSAGE, 0)
