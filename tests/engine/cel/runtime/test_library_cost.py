"""Library calls cost what kube-apiserver's library/cost.go CallCost charges when they run."""

from __future__ import annotations

import math

import pytest

from policyeditor.engine import cel
from policyeditor.engine.cel.runtime.functions import SIZED_COST_FN
from policyeditor.engine.cel.syntax import walk

READ = 2  # `object` and the field selection


def program(expr: str, version: str = "1.37") -> cel.Program:
    result = cel.compile_expression(
        expr,
        context=cel.Context.VALIDATION,
        version=version,
        env_type=cel.EnvType.STORED_EXPRESSIONS,
    )
    assert result.ok, result.errors
    return result.program


def run(expr: str, **obj) -> cel.EvalResult:
    return program(expr).evaluate(cel.Activation(object=obj))


def tenth(size: int) -> int:
    """cost.go: uint64(math.Ceil(float64(actualSize(args[0])) * StringTraversalCostFactor))."""
    return math.ceil(float(size) * 0.1)


def fifth(size: int) -> int:
    """cost.go replace/split/join: math.Ceil(float64(size) * 2 * StringTraversalCostFactor)."""
    return math.ceil(float(size) * 2 * 0.1)


SIZES = [0, 1, 9, 10, 11, 30, 99, 1000]


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize(
    "call", ["lowerAscii()", "upperAscii()", "trim()", "substring(0)", "substring(0, 0)"]
)
def test_lower_upper_trim_and_substring_cost_a_tenth_of_the_receiver_as_cost_go_rules(call, size):
    result = run(f"object.a.{call}", a="Q" * size)
    assert result.error is None
    assert result.cost == READ + tenth(size)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize(
    "call", ["replace('Q', 'qq')", "replace('Q', 'qq', 1)", "split('Q')", "split('Q', 2)"]
)
def test_replace_and_split_cost_twice_a_tenth_of_the_receiver_as_cost_go_rules(call, size):
    result = run(f"object.a.{call}", a="Q" * size)
    assert result.error is None
    assert result.cost == READ + fifth(size)


@pytest.mark.parametrize("items", [[], ["a"], ["a" * 20, "b" * 30], ["x"] * 50])
def test_join_costs_twice_a_tenth_of_the_result_as_cost_go_rules(items):
    result = run("object.l.join('--')", l=items)
    assert result.value == "--".join(items)
    assert result.cost == READ + fifth(len("--".join(items)))
    assert run("object.l.join()", l=items).cost == READ + fifth(len("".join(items)))


def test_receiver_sizes_are_counted_in_code_points_as_cel_go_size_does():
    result = run("object.a.lowerAscii()", a="é" * 10)  # 20 UTF-8 bytes, 10 code points
    assert result.cost == READ + tenth(10) == 3


@pytest.mark.parametrize("function", ["indexOf", "lastIndexOf"])
def test_string_index_of_costs_the_traversal_of_the_receiver_as_cost_go_rules(function):
    # traversalCost(types.String): uint64(float64(len(bytes)) * 0.1), truncated
    result = run(f"object.a.{function}('z')", a="é" * 15)  # 30 bytes
    assert result.value == -1
    assert result.cost == READ + 3
    assert run(f"object.a.{function}('z')", a="x" * 9).cost == READ + 0


@pytest.mark.parametrize("function", ["indexOf", "lastIndexOf"])
def test_list_index_of_costs_the_summed_traversal_of_its_elements(function):
    result = run(f"object.l.{function}('z')", l=["a" * 100, "b" * 55, "c"])
    assert result.value == -1
    assert result.cost == READ + 10 + 5 + 0
    assert run(f"[1, 2, 3].{function}(2)").cost == 10 + 3  # list literal, one per scalar


def test_find_costs_the_text_factor_times_the_regex_factor_as_cost_go_rules():
    # ceil((1 + 99) * 0.1) * ceil(8 * 0.25)
    result = run("object.a.find('[0-9]+xx')", a="x" * 99)
    assert result.cost == READ + 10 * 2
    assert run("object.a.findAll('[0-9]+xx')", a="x" * 99).cost == READ + 10 * 2
    assert run("object.a.findAll('[0-9]+xx', 3)", a="x" * 99).cost == READ + 10 * 2


def test_parsing_library_calls_cost_a_tenth_of_their_string_as_cost_go_rules():
    assert run("quantity(object.a).isInteger()", a="1234567890123k").cost == READ + 2 + 1
    assert run("isQuantity(object.a)", a="1" * 25).cost == READ + 3
    assert run("url(object.a).getHost()", a="https://" + "h" * 33).cost == READ + 5 + 1
    assert run("ip(object.a).family()", a="10.0.0.1").cost == READ + 1 + 1
    assert run("isCIDR(object.a)", a="2001:db8::/32" * 2).cost == READ + 3
    assert run("semver(object.a).major()", a="1.2.3-" + "a" * 20).cost == READ + 3 + 1


def test_is_url_keeps_cel_go_s_default_of_one_as_cost_go_does_not_list_it():
    assert run("isURL(object.a)", a="https://" + "h" * 100).cost == READ + 1


def test_list_library_calls_cost_the_traversal_of_the_receiver():
    assert run("object.l.sum()", l=list(range(40))).cost == READ + 40
    assert run("object.l.isSorted()", l=["a" * 25, "b" * 25]).cost == READ + 4
    assert run("object.l.max()", l=["a" * 9]).cost == READ + 0


def test_validate_costs_the_regex_product_with_the_format_max_regex_size():
    # dns1123Label: ceil((1 + len) * 0.1) * ceil(30 * 0.25), 80 for 99 characters, 8 for 9
    expr = "format.dns1123Label().validate(object.a).hasValue()"
    assert run(expr, a="a" * 99).cost - run(expr, a="a" * 9).cost == 80 - 8


def test_a_cidr_ip_costs_one_and_contains_ip_counts_the_prefix_bytes():
    assert run("cidr('10.0.0.0/8').ip().family()").cost == 1 + 1 + 1
    # cidr: ceil(0.1 * 10); containsIP: ceil(0.1 * (1 + 1)) + ceil(0.1 * 8) for the string
    assert run("cidr('10.0.0.0/8').containsIP('10.0.0.1')").cost == 1 + 1 + 1
    # a /128 prefix is 16 bytes: ceil(0.1 * 32) + ceil(0.1 * 8)
    assert run("cidr('2001:db8::/128').containsIP('10.0.0.1')").cost == 2 + 4 + 1


def test_a_failed_receiver_costs_the_one_cel_go_charges_for_a_size_of_one():
    result = run("object.n.lowerAscii()", n=3)
    assert result.error is not None
    assert result.cost == READ + 1


def test_a_failing_call_is_still_charged_for_its_receiver():
    result = run("object.a.substring(500)", a="x" * 100)
    assert "index out of range" in result.error.message
    assert result.cost == READ + 10


def test_nested_calls_each_pay_for_their_own_receiver():
    result = run("object.a.replace('x', 'xyz').upperAscii()", a="x" * 10)
    assert result.value == "XYZ" * 10
    assert result.cost == READ + fifth(10) + tenth(30)


def test_calls_in_a_loop_are_charged_on_each_iteration():
    result = run("object.l.map(s, s.lowerAscii())", l=["A" * 50] * 4)
    assert result.value == ["a" * 50] * 4
    assert (
        run("object.l.map(s, s.lowerAscii())", l=["A"] * 4).cost + 4 * (tenth(50) - tenth(1))
        == result.cost
    )


def test_replace_doubling_is_cancelled_at_the_per_call_limit_as_in_kubernetes():
    # 8 ** 8 characters reach the ninth replace, whose ceil(0.2 * size) alone is over 1,000,000
    expr = "['a']" + ".map(x, x.replace('a', 'aaaaaaaa'))" * 10 + ".size() > 0"
    result = program(expr, version="1.34").evaluate(cel.Activation())
    assert result.error.message == "operation cancelled: actual cost limit exceeded"
    assert result.cost > cel.PER_CALL_LIMIT


def test_expressions_without_sized_calls_are_not_rewritten():
    prog = program("object.a.size() > 3 && object.a.startsWith('x')")
    functions = {
        node.call_expr.function
        for node in walk.walk(prog.runtime.checked.expr)
        if node.WhichOneof("expr_kind") == "call_expr"
    }
    assert SIZED_COST_FN not in functions
    assert not prog.runtime.charges_calls
