"""Runtime cost limits and budgets stop evaluation with the Kubernetes messages."""

from __future__ import annotations

from policyeditor.engine import cel
from tests.engine.cel.compiling import compile_stored


def program(expr: str, **decl) -> cel.Program:
    result = compile_stored(expr, **decl)
    assert result.ok, result.errors
    return result.program


def test_a_loop_past_the_per_call_limit_stops_with_the_kubernetes_error():
    loop = program("object.items.all(x, object.items.all(y, x + y >= 0))")
    activation = cel.Activation(object={"items": list(range(60))})
    assert loop.evaluate(activation).value is True
    result = loop.evaluate(activation, limit=5_000)
    assert result.error is not None
    assert result.error.message == cel.COST_LIMIT_MESSAGE
    assert 5_000 < result.cost < 5_100  # stopped as soon as the limit was passed


def test_the_engine_iteration_cap_is_reported_as_an_engine_limit():
    from policyeditor.engine.cel.program import ENGINE_ITERATION_MESSAGE

    loop = program("object.items.all(x, x >= 0)")
    result = loop.evaluate(cel.Activation(object={"items": list(range(10_001))}))
    assert result.error is not None and result.error.message == ENGINE_ITERATION_MESSAGE


def test_the_same_loop_on_small_input_runs_and_reports_its_cost():
    loop = program("object.items.all(x, object.items.all(y, x + y >= 0))")
    result = loop.evaluate(cel.Activation(object={"items": list(range(10))}))
    assert result.value is True
    assert 100 < result.cost < 10_000


def test_cost_grows_with_the_iterations_actually_run():
    exists = program("object.items.exists(x, x == 3)")
    short = exists.evaluate(cel.Activation(object={"items": [3] + [0] * 50})).cost
    full = exists.evaluate(cel.Activation(object={"items": [0] * 50 + [3]})).cost
    assert short < full


def test_a_shared_budget_runs_out_across_expressions():
    budget = cel.CostBudget(100)
    check = program("object.items.map(x, x * 2).size() > 0")
    activation = cel.Activation(object={"items": [1, 2, 3]})
    first = check.evaluate(activation, budget=budget)
    assert first.error is None
    results = [check.evaluate(activation, budget=budget) for _ in range(5)]
    assert any(r.error is not None and r.error.message == cel.BUDGET_MESSAGE for r in results)
    assert budget.exhausted


def test_expressions_without_loops_cost_their_static_estimate():
    simple = program("object.metadata.name == 'a'")
    result = simple.evaluate(cel.Activation(object={"metadata": {"name": "a"}}))
    assert result.value is True
    assert result.cost == 4  # object, .metadata, .name, ==


def test_estimates_are_reported_and_unbounded_loops_estimate_high():
    small = cel.compile_expression("[1, 2].all(x, x > 0)", version="1.37")
    big = cel.compile_expression("object.items.all(x, x > 0)", version="1.37")
    assert small.estimated_cost is not None and small.estimated_cost < 100
    assert big.estimated_cost is not None and big.estimated_cost > cel.PER_CALL_LIMIT


def test_at_most_two_authorization_checks_fit_in_one_expression():
    from policyeditor.engine.cel.library import authz

    allow = authz.mock_authorizer(
        {"$mock": "fixed", "decision": "Allow", "reason": "", "error": None}
    )
    checks = [f"authorizer.path('/{p}').check('get').allowed()" for p in "abc"]
    two = program(" && ".join(checks[:2])).evaluate(cel.Activation(authorizer=allow))
    assert two.value is True
    assert 2 * cel.AUTHZ_CHECK_COST <= two.cost < cel.PER_CALL_LIMIT
    three = program(" && ".join(checks)).evaluate(cel.Activation(authorizer=allow))
    assert three.error is not None and three.error.message == cel.COST_LIMIT_MESSAGE


def test_an_expensive_branch_that_does_not_run_costs_nothing():
    from policyeditor.engine.cel.library import authz

    allow = authz.mock_authorizer(
        {"$mock": "fixed", "decision": "Allow", "reason": "", "error": None}
    )
    expr = "object.skip || authorizer.path('/a').check('get').allowed()"
    skipped = program(expr).evaluate(cel.Activation(object={"skip": True}, authorizer=allow))
    run = program(expr).evaluate(cel.Activation(object={"skip": False}, authorizer=allow))
    assert skipped.value is True and run.value is True
    assert skipped.cost < 10 <= cel.AUTHZ_CHECK_COST <= run.cost


def test_loops_over_literals_are_costed_statically_without_runtime_counting():
    allowed = program("['a', 'b', 'c'].exists(x, object.metadata.name == x)")
    assert not allowed.runtime.has_loops
    result = allowed.evaluate(cel.Activation(object={"metadata": {"name": "b"}}))
    assert result.value is True
    assert result.cost == allowed.runtime.base_cost > 3 * 3
