"""Compile and runtime errors read like cel-go and point at the user's own text."""

from __future__ import annotations

import pytest

from policyeditor.engine import cel
from tests.engine.cel.compiling import compile_stored


def compile_errors(expr: str, **decl) -> list[cel.CelIssue]:
    result = compile_stored(expr, **decl)
    return result.errors


def runtime_error(expr: str, **values) -> str:
    result = cel.evaluate_expression(expr, env_type=cel.EnvType.STORED_EXPRESSIONS, **values)
    assert isinstance(result, cel.EvalResult), result
    assert result.error is not None
    assert result.error.phase == "runtime"
    return result.error.message


def test_undeclared_reference_has_position_and_caret():
    (issue,) = compile_errors("object.a == y")
    assert issue.message == "undeclared reference to 'y' (in container '')"
    assert (issue.line, issue.column) == (1, 13)
    assert str(issue) == (
        "ERROR: <input>:1:13: undeclared reference to 'y' (in container '')\n"
        " | object.a == y\n"
        " | ............^"
    )


def test_positions_count_lines_of_multi_line_expressions():
    (issue,) = compile_errors("object.a == 1 &&\n  zz > 2")
    assert (issue.line, issue.column) == (2, 3)
    assert issue.snippet == " |   zz > 2\n | ..^"


def test_positions_after_a_rewrite_point_at_the_original_text():
    (issue,) = compile_errors("1 < 1.5 && nope")
    assert (issue.line, issue.column) == (1, 12)
    assert "1 < 1.5 && nope" in issue.snippet


def test_qualified_unknown_names_report_their_root_like_cel_go():
    (issue,) = compile_errors("a.b.c == 1")
    assert issue.message.startswith("undeclared reference to 'a'")
    assert issue.column == 1


def test_member_overload_errors_print_the_receiver_first():
    (issue,) = compile_errors("'a'.startsWith(1)")
    assert issue.message == "found no matching overload for 'startsWith' applied to 'string.(int)'"


def test_global_overload_errors_keep_parentheses():
    (issue,) = compile_errors("1 < 'asdf'")
    assert issue.message == "found no matching overload for '_<_' applied to '(int, string)'"


def test_undefined_field_of_typed_variables():
    (issue,) = compile_errors("request.userInfo.name == ''")
    assert issue.message == "undefined field 'name'"


def test_syntax_errors_are_reported_not_raised():
    issues = compile_errors("object.a ==")
    assert issues and issues[0].message.startswith("Syntax error:")


@pytest.mark.parametrize(
    ("expr", "values", "message"),
    [
        ("object.a", {"object": {}}, "no such key: a"),
        ("object['x-y']", {"object": {}}, "no such key: x-y"),
        ("object.l[3]", {"object": {"l": [1]}}, "index out of bounds: 3"),
        ("1 / object.z", {"object": {"z": 0}}, "division by zero"),
        ("object.n + 1", {"object": {"n": 9223372036854775807}}, "integer overflow"),
        ("object.s + 1", {"object": {"s": "x"}}, "no such overload: _+_(string, int)"),
        (
            "object.s.matches(object.r)",
            {"object": {"s": "a", "r": ")"}},
            "error parsing regexp: unexpected ): `)`",
        ),
    ],
)
def test_runtime_errors_use_cel_go_wording(expr, values, message):
    assert runtime_error(expr, **values) == message


def test_literal_validators_run_at_compile_time():
    assert compile_errors("duration('1d')")[0].message == "invalid duration argument"
    assert (
        compile_errors("timestamp('2020-13-01T00:00:00Z')")[0].message
        == "invalid timestamp argument"
    )
    assert compile_errors("timestamp(253402300800)")[0].message == "invalid timestamp argument"
    assert compile_errors("'x'.matches('(')")[0].message == "invalid matches argument"
    assert not compile_errors("duration('1h30m') > duration('1.5s')")
    assert not compile_errors("timestamp('2020-02-29T23:59:59.5+01:00') > timestamp(0)")


def test_homogeneous_aggregate_literals_are_enforced():
    assert compile_errors("[1, 'a']")[0].message == "expected type 'int' but found 'string'"
    assert (
        compile_errors("{'a': 1, 'b': 'x'}")[0].message == "expected type 'int' but found 'string'"
    )
    assert compile_errors("{'a': 1, 2: 1}")[0].message == "expected type 'string' but found 'int'"
    assert not compile_errors("[1, dyn('a')]")
    assert not compile_errors("['a', ?optional.of('b')]")
    assert not compile_errors("'%d %s'.format([1, 'a'])")


def test_a_dyn_element_widens_the_literal_type_as_cel_go_joins_types():
    assert not compile_errors("[1, dyn(2), 'a']")
    assert not compile_errors("{'a': 1, 'b': dyn(2), 'c': 'x'}")


def test_the_engine_nesting_limit_is_reported_as_an_engine_limit():
    (issue,) = compile_errors(" + ".join(["1"] * 60))
    assert issue.line is None
    assert "not of Kubernetes" in issue.message
    assert not compile_errors(" && ".join(f"object.a{i} == 1" for i in range(60)))


# google/cel-go interpreter/attributes.go, refQualify: a value without fields answers
# `no such key: <field>` to a selection and "not present" to a presence test.
NULLS = {"spec": {"x": None, "n": 1, "items": [None, {"name": "a"}], "m": {"k": {"j": None}}}}


@pytest.mark.parametrize(
    ("expr", "message"),
    [
        ("object.spec.x.y", "no such key: y"),
        ("object.spec.x.y.z", "no such key: y"),
        ("object.spec.m.k.j.z", "no such key: z"),
        ("object.spec.n.y", "no such key: y"),
        ("object.spec.items[0].name", "no such key: name"),
        ("object.spec.items.map(i, i.name)", "no such key: name"),
        ("object.spec.m.k != null && object.spec.x.q == 1", "no such key: q"),
        ("dyn(null).a", "no such key: a"),
        ('object.spec.x["y"]', "no such key: y"),
        ('object.spec.n["y"]', "no such key: y"),
        ("object.spec.x[0]", "no such key: 0"),
        ('object.spec.m["k"]["j"]["z"]', "no such key: z"),
        ('object.spec.items[1].name == "a" && object.spec.x["q"] == 1', "no such key: q"),
    ],
)
def test_selecting_a_field_of_null_names_the_missing_key(expr, message):
    assert runtime_error(expr, object=NULLS) == message


def test_a_presence_test_on_null_is_false():
    result = cel.evaluate_expression(
        "has(object.spec.x.y) || has(object.spec.n.y) || has(object.spec.m.k.j.z)", object=NULLS
    )
    assert (result.value, result.error) == (False, None)
    both = cel.evaluate_expression("has(object.spec.m.k) && !has(object.spec.x.y)", object=NULLS)
    assert both.value is True


def test_selecting_from_a_value_typed_without_fields_is_a_checker_error():
    # google/cel-go checker/errors.go, typeDoesNotSupportFieldSelection
    assert [i.message for i in compile_errors("null.a")] == [
        "type 'null_type' does not support field selection"
    ]
    assert [i.message for i in compile_errors("{'a': null}.a.b")] == [
        "type 'null_type' does not support field selection"
    ]


def test_a_macro_expansion_overload_error_keeps_the_operator_form():
    # cel-go reports the expanded `_&&_` of all() with both operands in parentheses.
    assert [i.message for i in compile_errors("[1].all(x, x)")] == [
        "found no matching overload for '_&&_' applied to '(bool, int)'"
    ]


def test_has_of_something_other_than_a_selection_is_cel_gos_macro_error():
    # google/cel-go parser/macro.go, makeHas: reported at the argument
    (issue,) = compile_errors("has(object)")
    assert (issue.message, issue.column) == ("invalid argument to has() macro", 5)
