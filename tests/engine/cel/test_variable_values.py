"""Composited variables keep their CEL types when read, and read as plain JSON for display."""

from __future__ import annotations

import pytest

from policyeditor.engine import cel


def evaluate(variables, expr, obj=None):
    results, declarations = cel.compile_variables(variables, version="1.37")
    main = cel.compile_expression(
        expr, context=cel.Context.VALIDATION, version="1.37", declarations=declarations
    )
    assert main.ok, main.errors
    activation = cel.Activation(object=obj if obj is not None else {})
    resolver = cel.VariableResolver(results).bind(activation)
    return main.program.evaluate(activation), resolver


@pytest.mark.parametrize(
    ("definition", "check"),
    [
        ("duration('60s')", "variables.v > duration('1s')"),
        ("timestamp('2020-01-01T00:00:00Z')", "variables.v.getFullYear() == 2020"),
        ("b'abc'", "size(variables.v) == 3"),
        ("[duration('1m'), duration('2m')]", "variables.v[1] - variables.v[0] == duration('60s')"),
        ("{'at': timestamp('2021-06-01T00:00:00Z')}", "variables.v.at.getMonth() == 5"),
        ("quantity('1Gi')", "variables.v.isGreaterThan(quantity('1Mi'))"),
    ],
)
def test_a_variable_is_read_with_its_cel_type(definition, check):
    result, _ = evaluate([("v", definition)], check)
    assert result.error is None, result.error
    assert result.value is True


def test_variable_values_for_display_are_plain_json():
    result, resolver = evaluate(
        [("d", "duration('90s')"), ("b", "b'hi'"), ("t", "timestamp('2020-01-01T00:00:00Z')")],
        "variables.d > duration('1s') && size(variables.b) == 2 && variables.t != timestamp(0)",
    )
    assert result.value is True
    assert resolver.values == {
        "d": (True, "90s"),
        "b": (True, "aGk="),
        "t": (True, "2020-01-01T00:00:00Z"),
    }


def test_an_object_variable_is_read_from_the_activation_object():
    obj = {"spec": {"containers": [{"name": "app", "image": "a:1"}, {"name": "b", "image": "b"}]}}
    result, resolver = evaluate(
        [("containers", "object.spec.containers")],
        "variables.containers.exists(c, c.name == 'app') && size(variables.containers) == 2",
        obj,
    )
    assert result.value is True
    assert resolver.values["containers"] == (True, obj["spec"]["containers"])
