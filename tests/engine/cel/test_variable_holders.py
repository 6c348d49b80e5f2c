"""Variables are handed to the engine through holders: resolved lazily, once, and read as data."""

from __future__ import annotations

from policyeditor.engine import cel
from policyeditor.engine.cel.runtime.functions import VARIABLE_READY_FN, holder_name
from policyeditor.engine.cel.runtime.values import plain_view
from policyeditor.engine.cel.syntax import walk


def compiled(variables, *expressions):
    results, declarations = cel.compile_variables(variables, version="1.37")
    programs = []
    for expr in expressions:
        main = cel.compile_expression(
            expr, context=cel.Context.VALIDATION, version="1.37", declarations=declarations
        )
        assert main.ok, main.errors
        programs.append(main.program)
    return results, programs


def bound(results, obj):
    activation = cel.Activation(object=obj)
    resolver = cel.VariableResolver(results).bind(activation)
    return activation, resolver


def _functions_called(expr):
    """The names of the functions that `expr`'s call nodes call."""
    return [
        node.call_expr.function
        for node in walk.walk(expr)
        if node.WhichOneof("expr_kind") == "call_expr"
    ]


def test_a_variable_read_is_rewritten_to_resolve_then_read_its_holder():
    _, (program,) = compiled([("v", "object.x")], "variables.v == 1")
    calls = _functions_called(program.runtime.checked.expr)
    assert VARIABLE_READY_FN in calls
    assert holder_name("v") in program.runtime.idents


def test_once_its_variables_are_resolved_a_program_reads_the_holders_without_the_helper():
    _, (program,) = compiled([("v", "object.x")], "variables.v == 1")
    calls = _functions_called(program.runtime.resolved_checked.expr)
    assert VARIABLE_READY_FN not in calls and "_[_]" in calls


def test_the_resolved_form_costs_what_the_helper_form_costs_besides_the_resolution():
    results, (program,) = compiled(
        [("a", "object.items.map(i, i + 1)"), ("b", "object.items.map(i, i * 2)")],
        "size(variables.a) + size(variables.b) == 6",
    )
    activation, resolver = bound(results, {"items": [1, 2, 3]})
    first = program.evaluate(activation)
    assert resolver.all_resolved(("a", "b"))
    second = program.evaluate(activation)
    assert first.value is True and second.value is True
    resolution = sum(
        results[name].program.evaluate(cel.Activation(object={"items": [1, 2, 3]})).cost
        for name in ("a", "b")
    )
    assert second.cost == first.cost - resolution


def test_a_program_with_one_variable_unresolved_keeps_the_helper_for_it():
    results, (only_a, both) = compiled(
        [("a", "object.x"), ("b", "object.missing")],
        "variables.a == 1",
        "variables.a == 1 && variables.b == 2",
    )
    activation, resolver = bound(results, {"x": 1})
    assert only_a.evaluate(activation).value is True
    assert not resolver.all_resolved(("a", "b"))
    result = both.evaluate(activation)
    assert result.error is not None and 'composited variable "b"' in result.error.message


def test_a_variable_read_by_several_programs_is_evaluated_once_and_held():
    results, programs = compiled(
        [("items", "object.items")],
        "variables.items.all(i, i > 0)",
        "size(variables.items) == 3",
        "variables.items.exists(i, i == 2)",
    )
    activation, resolver = bound(results, {"items": [1, 2, 3]})
    assert [p.evaluate(activation).value for p in programs] == [True, True, True]
    assert resolver.holders[holder_name("items")] == [[1, 2, 3]]


def test_the_cost_of_a_held_variable_is_charged_once_per_activation_as_before():
    results, (first, second) = compiled(
        [("items", "object.items.map(i, i * 2)")],
        "size(variables.items) == 3",
        "size(variables.items) == 3",
    )
    activation, _ = bound(results, {"items": [1, 2, 3]})
    charged = first.evaluate(activation).cost
    again = second.evaluate(activation).cost
    assert charged > again  # the second read finds the variable resolved: no loop cost
    fresh, _ = bound(results, {"items": [1, 2, 3]})
    assert second.evaluate(fresh).cost == charged  # a new activation evaluates it anew


def test_a_variable_that_fails_still_fails_every_read_with_its_message():
    results, (program,) = compiled([("v", "object.missing")], "variables.v == 1")
    activation, resolver = bound(results, {})
    for _ in range(2):
        result = program.evaluate(activation)
        assert result.error is not None
        assert 'composited variable "v" fails to evaluate' in result.error.message
    assert resolver.holders[holder_name("v")] == []


def test_a_variable_in_a_branch_not_taken_is_never_evaluated():
    results, (program,) = compiled([("v", "object.missing")], "true || variables.v == 1")
    activation, resolver = bound(results, {})
    assert program.evaluate(activation).value is True
    assert resolver.values == {}


def test_an_optional_variable_is_read_back_as_an_optional_through_its_holder():
    results, (program,) = compiled(
        [("o", "object.?x"), ("p", "object.?y")], "variables.o.orValue(0) + variables.p.orValue(5)"
    )
    activation, _ = bound(results, {"x": 2})
    assert program.evaluate(activation).value == 7


def test_a_held_variable_is_read_in_the_sanitized_retry_of_huge_integers():
    results, (program,) = compiled([("m", "object.m")], "variables.m + 1 == 2 && object.n > 1.0")
    activation, _ = bound(results, {"m": 1, "n": 2**70})
    assert program.evaluate(activation).value is True


def test_a_loop_variable_named_like_a_holder_does_not_shadow_the_variable():
    results, (program,) = compiled(
        [("v", "object.limit")], "object.items.all(variables__v, variables__v < variables.v)"
    )
    activation, _ = bound(results, {"limit": 10, "items": [1, 2, 3]})
    assert program.evaluate(activation).value is True


def test_a_variable_name_that_is_no_identifier_keeps_the_value_returning_helper():
    assert holder_name("v1") == "variables@v1"
    assert holder_name("not-an-ident") is None
    assert holder_name("") is None


def test_passes_over_the_same_values_share_one_engine_activation():
    cache: dict = {}
    results, (check, message) = compiled(
        [("n", "object.n")], "variables.n > 0", "'n is ' + string(variables.n)"
    )
    obj = {"n": 3}
    first = cel.Activation(object=obj, engine_cache=cache)
    cel.VariableResolver(results).bind(first)
    second = cel.Activation(object=obj, engine_cache=cache)
    cel.VariableResolver(results).bind(second)
    assert check.evaluate(first).value is True
    assert message.evaluate(second).value == "n is 3"
    assert len(cache) == 1  # the variable's own program ran on the shared activation


def test_the_display_value_of_plain_data_is_shared_not_copied():
    data = {"a": [1, {"b": "c"}], "d": None}
    assert plain_view(data) is data
    assert plain_view({"x": b"hi"}) == {"x": "aGk="}
    assert plain_view({"@policyeditor/construction-type": "T", "y": 1}) == {"y": 1}
