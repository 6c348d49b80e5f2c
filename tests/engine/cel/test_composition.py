"""Composited variables: typed in order, evaluated lazily once per activation, errors named."""

from __future__ import annotations

from policyeditor.engine import cel

OBJECT = {"metadata": {"name": "web"}, "spec": {"replicas": 3, "ports": [80, 443]}}


def compiled(variables, expr, **kw):
    results, declarations = cel.compile_variables(variables, version="1.37", **kw)
    main = cel.compile_expression(
        expr, context=cel.Context.VALIDATION, version="1.37", declarations=declarations
    )
    return results, declarations, main


def evaluate(variables, expr, obj=OBJECT, budget=None):
    results, _, main = compiled(variables, expr)
    assert main.ok, main.errors
    activation = cel.Activation(object=obj)
    cel.VariableResolver(results).bind(activation)
    return main.program.evaluate(activation, budget=budget)


def test_each_variable_sees_the_earlier_ones_with_their_types():
    _, declarations, main = compiled(
        [
            ("ports", "object.spec.ports"),
            ("count", "size(variables.ports)"),
            ("names", "['a', 'b']"),
        ],
        "variables.count > 1",
    )
    assert declarations.variables == ("ports", "count", "names")
    assert declarations.variable_types == ("dyn", "int", "list(string)")
    assert main.ok


def test_later_variables_cannot_see_later_ones():
    results, _ = cel.compile_variables([("a", "variables.b"), ("b", "1")], version="1.37")
    assert not results["a"].ok
    assert "undeclared reference to 'variables'" in results["a"].error_text()


def test_a_variable_is_evaluated_once_and_its_cost_counted_once():
    once = evaluate([("name", "object.metadata.name")], "variables.name == 'web'")
    twice = evaluate(
        [("name", "object.metadata.name")], "variables.name + variables.name == 'webweb'"
    )
    assert once.value is True and twice.value is True
    # variable 3 (object, .metadata, .name) + access 2 + `==` 1
    assert once.cost == 6
    # the second read adds its access (2) and the `+` (1), not the variable's 3 again
    assert twice.cost == 9


def test_a_failing_variable_that_is_not_read_does_no_harm():
    result = evaluate([("bad", "object.nope"), ("good", "1")], "true || variables.bad == 1")
    assert result.value is True


def test_runtime_errors_name_the_variable():
    result = evaluate([("bad", "object.spec.ports[10]")], "variables.bad == 1")
    assert result.error is not None
    assert (
        result.error.message
        == 'composited variable "bad" fails to evaluate: index out of bounds: 10'
    )


def test_compile_errors_surface_when_the_variable_is_read():
    result = evaluate([("bad", "1 == 'a'")], "variables.bad == true")
    assert result.error is not None
    assert result.error.message.startswith(
        'composited variable "bad" fails to compile: ERROR: <input>:1:3:'
    )


def test_a_new_activation_evaluates_variables_again():
    results, _, main = compiled([("name", "object.metadata.name")], "variables.name")
    first = cel.Activation(object=OBJECT)
    cel.VariableResolver(results).bind(first)
    second = cel.Activation(object={"metadata": {"name": "db"}})
    cel.VariableResolver(results).bind(second)
    assert main.program.evaluate(first).value == "web"
    assert main.program.evaluate(second).value == "db"


def test_lazy_variable_cost_goes_to_the_budget_of_the_reader():
    result = evaluate(
        [("name", "object.metadata.name")], "variables.name == 'web'", budget=cel.CostBudget(4)
    )
    assert result.error is not None and result.error.message == cel.BUDGET_MESSAGE


def test_evaluate_expression_convenience_takes_variables():
    result = cel.evaluate_expression(
        "variables.double * 2", object={"n": 2}, variables=[("double", "object.n * 2")]
    )
    assert result.value == 8


def test_optional_variables_stay_optional_for_their_readers():
    variables = [("img", "object.spec.?image")]
    present = evaluate(variables, "variables.img.orValue('none')", obj={"spec": {"image": "nginx"}})
    absent = evaluate(variables, "variables.img.orValue('none')", obj={"spec": {}})
    assert (present.value, absent.value) == ("nginx", "none")
    assert evaluate(variables, "variables.img.hasValue()", obj={"spec": {}}).value is False


# `variables` is an object type backed by a lazy map (kubernetes/kubernetes
# staging/src/k8s.io/apiserver/pkg/cel/lazy/lazy.go, MapValue.Find): `has(variables.x)` is a
# presence test, bool at check time, resolving x; `has(variables.x.f)` tests x's field.
PSC = [("psc", "object.spec.securityContext"), ("missing", "object.spec.nope")]
WITH_PSC = {"spec": {"securityContext": {"runAsUser": 1000}}}


def test_has_of_a_declared_variable_is_a_bool_presence_test():
    _, _, main = compiled(PSC, "has(variables.psc)")
    assert main.ok, main.errors
    assert main.output_type == "bool"
    assert evaluate(PSC, "has(variables.psc)", obj=WITH_PSC).value is True
    assert evaluate(PSC, "has(variables.psc) == true", obj=WITH_PSC).value is True
    assert evaluate(PSC, "!has(variables.psc)", obj=WITH_PSC).value is False


def test_has_of_a_variable_and_of_its_field_combine():
    expr = "has(variables.psc) && has(variables.psc.runAsUser)"
    assert evaluate(PSC, expr, obj=WITH_PSC).value is True
    assert (
        evaluate(PSC, "has(variables.psc) && has(variables.psc.runAsGroup)", obj=WITH_PSC).value
        is False
    )
    assert (
        evaluate(PSC, "has(variables.psc) ? variables.psc.runAsUser : 0", obj=WITH_PSC).value
        == 1000
    )


def test_has_of_a_variable_whose_value_is_null_is_true():
    variables = [("none", "null")]
    assert evaluate(variables, "has(variables.none)").value is True


def test_has_of_a_failing_variable_is_the_variable_error():
    result = evaluate(PSC, "has(variables.missing)", obj=WITH_PSC)
    assert result.value is None
    assert result.error.message == (
        'composited variable "missing" fails to evaluate: no such key: nope'
    )


def test_has_of_an_undeclared_variable_is_an_undefined_field():
    _, _, main = compiled(PSC, "has(variables.nope)")
    assert [issue.message for issue in main.errors] == ["undefined field 'nope'"]


def test_has_of_a_variable_works_inside_macros_and_other_variables():
    variables = [*PSC, ("set", "has(variables.psc) && has(variables.psc.runAsUser)")]
    assert evaluate(variables, "variables.set", obj=WITH_PSC).value is True
    assert evaluate(PSC, "[1, 2].all(i, has(variables.psc))", obj=WITH_PSC).value is True
    # A loop variable named `variables` shadows the declared object: a map is tested.
    expr = "[{'psc': 1}].all(variables, has(variables.psc))"
    assert evaluate(PSC, expr, obj=WITH_PSC).value is True
