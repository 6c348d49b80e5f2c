"""One activation serves many programs: values converted once, reassigned fields seen anew."""

from __future__ import annotations

from policyeditor.engine import cel


def program(expr, context=cel.Context.VALIDATION):
    result = cel.compile_expression(expr, context=context, version="1.37")
    assert result.ok, result.errors
    return result.program


def test_programs_of_different_contexts_share_one_activation():
    activation = cel.Activation(
        object={"metadata": {"name": "web"}}, request={"operation": "CREATE"}
    )
    name = program("object.metadata.name")
    operation = program("request.operation", cel.Context.MATCH_CONDITION)
    message = program("'name ' + object.metadata.name", cel.Context.MESSAGE_EXPRESSION)
    for _ in range(2):
        assert name.evaluate(activation).value == "web"
        assert operation.evaluate(activation).value == "CREATE"
        assert message.evaluate(activation).value == "name web"


def test_a_reassigned_object_is_seen_by_the_next_evaluation():
    activation = cel.Activation(object={"spec": {"replicas": 1}})
    replicas = program("object.spec.replicas")
    assert replicas.evaluate(activation).value == 1
    activation.object = {"spec": {"replicas": 7}}
    assert replicas.evaluate(activation).value == 7


def test_match_conditions_never_see_the_namespace_object_other_contexts_do():
    activation = cel.Activation(
        object={}, namespace_object={"metadata": {"name": "shop", "labels": {"env": "prod"}}}
    )
    validation = program("namespaceObject.metadata.labels['env']")
    assert validation.evaluate(activation).value == "prod"
    condition = program("namespaceObject == null", cel.Context.MATCH_CONDITION)
    assert condition.evaluate(activation).value is True
    assert validation.evaluate(activation).value == "prod"


def test_an_integer_beyond_int64_is_still_read_as_a_double_with_a_shared_activation():
    activation = cel.Activation(object={"n": 2**70, "m": 1})
    assert program("object.m").evaluate(activation).value == 1
    assert program("object.n > 1.0").evaluate(activation).value is True
    assert program("object.m + 1").evaluate(activation).value == 2


def test_cached_compilation_is_the_same_for_enum_and_string_arguments():
    by_enum = cel.compile_expression("1 < 2", context=cel.Context.VALIDATION, version="1.37")
    by_text = cel.compile_expression("1 < 2", context="validation", version="1.37")
    assert by_text is by_enum
    assert cel.compile_expression("1 < 2", context="validation", version="v1.37").ok


def test_non_string_expressions_do_not_share_cached_results():
    as_int = cel.compile_expression(1, context="validation")
    as_bool = cel.compile_expression(True, context="validation")
    assert "not int" in str(as_int.errors[0]) and "not bool" in str(as_bool.errors[0])
