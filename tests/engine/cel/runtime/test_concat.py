"""String and bytes concatenation costs what cel-go's cost tracker charges: ceil((m + n) * 0.1)."""

from __future__ import annotations

import math

import pytest

from policyeditor.engine import cel
from policyeditor.engine.cel.runtime.functions import ADD_COST_FN
from policyeditor.engine.cel.syntax import walk


def program(expr: str) -> cel.Program:
    result = cel.compile_expression(
        expr,
        context=cel.Context.VALIDATION,
        version="1.37",
        env_type=cel.EnvType.STORED_EXPRESSIONS,
    )
    assert result.ok, result.errors
    return result.program


def cel_go_add(lhs: int, rhs: int) -> int:
    """interpreter/runtimecost.go, AddString/AddBytes: float64 sizes times 0.1, rounded up."""
    return math.ceil(float(lhs + rhs) * 0.1)


def run(expr: str, **obj) -> cel.EvalResult:
    return program(expr).evaluate(cel.Activation(object=obj))


def calls(prog: cel.Program) -> list[str]:
    return [
        node.call_expr.function
        for node in walk.walk(prog.runtime.checked.expr)
        if node.WhichOneof("expr_kind") == "call_expr"
    ]


@pytest.mark.parametrize("length", [0, 1, 6, 7, 8, 17, 27, 100, 999, 10_000])
def test_a_string_concatenation_costs_a_tenth_of_both_sizes_rounded_up(length):
    result = run("object.a + 'xyz'", a="q" * length)
    assert result.value == "q" * length + "xyz"
    assert result.cost == 2 + cel_go_add(length, 3)  # object, .a, then the concatenation


def test_string_sizes_are_counted_in_code_points_not_bytes():
    result = run("object.a + 'xyz'", a="é" * 10)  # 20 UTF-8 bytes, 10 code points
    assert result.cost == 2 + cel_go_add(10, 3) == 4


def test_concatenating_two_empty_strings_costs_nothing():
    assert run("'' + ''").cost == 0


def test_a_bytes_concatenation_counts_bytes():
    expr = "b'" + "a" * 25 + "' + b'" + "\\xff" * 5 + "'"  # 25 + 5 bytes, 45 characters of text
    result = run(expr)
    assert result.cost == cel_go_add(25, 5) == 3


def test_nested_concatenations_each_pay_for_their_own_operands():
    n = 55
    result = run("(object.a + '-') + object.a", a="x" * n)
    assert result.value == "x" * n + "-" + "x" * n
    assert result.cost == 2 + cel_go_add(n, 1) + 2 + cel_go_add(n + 1, n)


def test_a_long_chain_of_literals_is_charged_step_by_step():
    letters = "abcdefghijklmnopqrstuvwx"
    result = run(" + ".join(f"'{c}'" for c in letters))
    assert result.value == letters
    assert result.cost == sum(cel_go_add(k - 1, 1) for k in range(2, len(letters) + 1)) == 41


def test_concatenations_inside_a_loop_are_charged_on_each_iteration():
    short = run("object.items.map(s, s + '!')", items=["a"] * 5)
    long = run("object.items.map(s, s + '!')", items=["a" * 99] * 5)
    assert long.value == ["a" * 99 + "!"] * 5
    assert long.cost - short.cost == 5 * (cel_go_add(99, 1) - cel_go_add(1, 1))


def test_list_concatenation_costs_one_whatever_the_lengths_as_in_cel_go():
    small = run("object.l + object.m", l=[1], m=[2])
    big = run("object.l + object.m", l=list(range(5000)), m=list(range(5000)))
    assert big.value == list(range(5000)) * 2
    assert small.cost == big.cost == 5
    assert "_+_" in calls(program("[1, 2] + [3]")) and ADD_COST_FN not in calls(
        program("[1] + [2]")
    )


def test_a_concatenation_of_dyn_operands_costs_one_as_cel_go_has_no_overload_to_size():
    # Several candidate overloads: cel-go's planner leaves the overload id empty, costCall's default.
    result = run("object.a + object.b", a="x" * 500, b="y" * 500)
    assert result.value == "x" * 500 + "y" * 500
    assert result.cost == 5
    assert ADD_COST_FN not in calls(program("object.a + object.b"))


def test_a_concatenation_whose_operand_fails_keeps_the_error_and_costs_one():
    result = run("object.missing + 'x'", a="b")
    assert result.error is not None and result.error.message == "no such key: missing"
    assert result.cost == 3


def test_concatenation_results_and_errors_are_unchanged_by_the_rewrite():
    assert run("object.a + 'ü'", a="é").value == "éü"
    assert run("(object.a + 'b').size()", a="ab").value == 3
    assert run("{'k' + object.a: object.a + 'v'}", a="a").value == {"ka": "av"}
    assert run("object.items.map(s, s + '-' + s)", items=["a", "b"]).value == ["a-a", "b-b"]
    assert run("true || (object.missing + 'a' == 'b')").value is True


def test_a_concatenation_counts_no_iteration_of_the_engine_cap():
    result = run("object.items.all(x, (x + 'a').size() == 2)", items=["b"] * 9_999)
    assert result.value is True


def test_an_expression_without_concatenation_keeps_the_fast_path():
    plain = program("object.metadata.name == 'a'")
    assert not plain.runtime.concatenates and not plain.runtime.needs_state
    joined = program("object.metadata.name + 'a' == 'ba'")
    assert joined.runtime.concatenates and joined.runtime.needs_state


def test_the_per_call_limit_is_reached_by_concatenation_at_cel_gos_exact_cost():
    prog = program("object.a + 'x'")
    activation = cel.Activation(object={"a": "q" * 9_999})
    cost = 2 + cel_go_add(9_999, 1)
    assert prog.evaluate(activation, limit=cost).cost == cost == 1_002
    over = prog.evaluate(activation, limit=cost - 1)
    assert over.error is not None and over.error.message == cel.COST_LIMIT_MESSAGE


def test_the_per_policy_budget_is_reached_by_concatenation():
    prog = program("object.a + 'x' != ''")
    activation = cel.Activation(object={"a": "q" * 9_999})
    each = prog.evaluate(activation).cost
    budget = cel.CostBudget(2 * each)
    assert prog.evaluate(activation, budget=budget).value is True
    assert prog.evaluate(activation, budget=budget).value is True
    third = prog.evaluate(activation, budget=budget)
    assert third.error is not None and third.error.message == cel.BUDGET_MESSAGE


def test_a_policy_runs_out_of_budget_on_long_concatenations(monkeypatch):
    from policyeditor.engine.admission import cel_bindings
    from tests.engine.admission.validating.test_policy import deployment, vap
    from tests.engine.admission.validating.test_policy import run as admit

    obj = deployment(1)
    obj["metadata"]["annotations"] = {"note": "n" * 50_000}
    expression = "size(object.metadata.annotations.note + '.') > 0"
    validations = [{"expression": expression}] * 3
    unlimited = admit([vap(validations=validations)], obj)
    assert unlimited.allowed
    # Each: 4 selections, size and > (1 each) and the concatenation, ceil(50,001 * 0.1) = 5,001.
    assert [v.cost for v in unlimited.policies[0].validations] == [5_007] * 3
    monkeypatch.setattr(cel_bindings, "RUNTIME_BUDGET", 2 * 5_007 + 100)
    result = admit([vap(validations=validations)], obj)
    assert not result.allowed and result.result == "error"
    assert result.message.endswith(
        "denied request: validation failed due to running out of cost budget, "
        "no further validation rules will be run"
    )
