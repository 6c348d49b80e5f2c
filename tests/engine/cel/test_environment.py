"""The variables and libraries each environment declares, per context and version."""

from __future__ import annotations

import pytest

from policyeditor.engine import cel

STORED = cel.EnvType.STORED_EXPRESSIONS
NEW = cel.EnvType.NEW_EXPRESSIONS


def compile_in(
    expr: str, version: str = "1.37", env_type=STORED, context=cel.Context.VALIDATION, **decl
):
    return cel.compile_expression(
        expr,
        context=context,
        version=version,
        declarations=cel.Declarations(**decl),
        env_type=env_type,
    )


def messages(result) -> str:
    return "\n".join(issue.message for issue in result.errors)


def test_params_is_declared_only_with_a_param_kind():
    assert "undeclared reference to 'params'" in messages(compile_in("params.x == 1"))
    assert compile_in("params.x == 1", has_params=True).ok


def test_match_conditions_never_see_variables():
    decl = {"variables": ("a",), "variable_types": ("int",)}
    assert compile_in("variables.a > 1", **decl).ok
    result = compile_in("variables.a > 1", context=cel.Context.MATCH_CONDITION, **decl)
    assert "undeclared reference to 'variables'" in messages(result)


def test_an_unknown_variable_is_an_undefined_field_at_the_selecting_dot():
    result = compile_in("variables.replicas == 2", variables=("foo",), variable_types=("int",))
    (issue,) = result.errors
    assert (issue.message, issue.line, issue.column) == ("undefined field 'replicas'", 1, 10)


def test_variables_is_undeclared_when_the_policy_has_none():
    assert "undeclared reference to 'variables'" in messages(compile_in("variables.a > 1"))


def test_request_is_typed_with_every_admission_request_field():
    fields = [
        "kind.group",
        "kind.version",
        "kind.kind",
        "resource.resource",
        "subResource",
        "requestKind.kind",
        "requestResource.group",
        "requestSubResource",
        "name",
        "namespace",
        "operation",
        "userInfo.username",
        "userInfo.uid",
        "userInfo.groups",
        "userInfo.extra",
        "dryRun",
        "options",
    ]
    for field in fields:
        assert compile_in(f"has(request.{field})").ok, field
    assert "undefined field 'uid'" in messages(compile_in("request.uid == ''"))
    assert "undefined field 'object'" in messages(compile_in("request.object == null"))


def test_request_field_types_are_checked():
    result = compile_in("request.dryRun == 'yes'")
    assert "found no matching overload for '_==_' applied to '(bool, string)'" in messages(result)


def test_namespace_object_exposes_only_the_kubernetes_fields():
    assert compile_in("namespaceObject.metadata.labels['a'] == 'b'").ok
    assert compile_in("namespaceObject.status.conditions[0].reason == ''").ok
    result = compile_in("namespaceObject.metadata.managedFields")
    assert "undefined field 'managedFields'" in messages(result)


def test_absent_namespace_labels_read_as_empty_maps():
    result = cel.evaluate_expression(
        "'x' in namespaceObject.metadata.annotations", namespace_object={"metadata": {"name": "n"}}
    )
    assert result.value is False


def test_variables_keep_their_compile_time_types():
    result = compile_in("variables.n.startsWith('a')", variables=("n",), variable_types=("int",))
    assert "found no matching overload for 'startsWith' applied to 'int.(string)'" in messages(
        result
    )


@pytest.mark.parametrize(
    "expr",
    ["cel.bind(x, 1, x)", "math.greatest(1, 2)", "base64.encode(b'a')", "'abc'.reverse()"],
)
def test_extensions_kubernetes_does_not_enable_are_absent(expr):
    assert not compile_in(expr).ok


def test_string_extension_version_two_is_there():
    assert cel.evaluate_expression("'%d-%s'.format([1, 'a'])").value == "1-a"
    assert cel.evaluate_expression("strings.quote('a')").value == '"a"'
    assert cel.evaluate_expression("'a,b'.split(',')").value == ["a", "b"]


def test_two_variable_comprehensions_appear_in_1_32():
    expr = "[1, 2].all(i, v, v > i)"
    assert not compile_in(expr, version="1.31").ok
    assert compile_in(expr, version="1.32").ok
    assert not compile_in(expr, version="1.32", env_type=NEW).ok
    assert compile_in(expr, version="1.33", env_type=NEW).ok


def test_lists_extension_appears_in_1_34_with_a_version_hint():
    assert compile_in("lists.range(3).size() == 3", version="1.34").ok
    result = compile_in("[3, 1].sort()", version="1.33")
    assert not result.ok
    assert "`sort` requires Kubernetes 1.34" in messages(result)
    new = compile_in("[3, 1].sort()", version="1.34", env_type=NEW)
    assert "`sort` requires Kubernetes 1.34 (new expressions: 1.35)" in messages(new)


def test_transform_map_works_despite_the_engine():
    result = cel.evaluate_expression("{'a': 1, 'b': 2}.transformMap(k, v, v * 10)")
    assert result.value == {"a": 10, "b": 20}
    filtered = cel.evaluate_expression("{'a': 1, 'b': 2}.transformMap(k, v, v > 1, v * 10)")
    assert filtered.value == {"b": 20}
    entries = cel.evaluate_expression("{'a': 1}.transformMapEntry(k, v, {k + 'x': v + 1})")
    assert entries.value == {"ax": 2}


def test_lists_extension_functions_behave_like_cel_go():
    assert cel.evaluate_expression("[1, 2, 3, 4].slice(1, 3)").value == [2, 3]
    nested = cel.evaluate_expression("object.l.flatten(2)", object={"l": [[1], [2, [3]]]})
    assert nested.value == [1, 2, 3]
    assert not compile_in("[1, [2]]").ok  # homogeneous literals
    assert cel.evaluate_expression("[3, 1, 2].sortBy(x, -x)").value == [3, 2, 1]
    assert not compile_in("[1, 2].first()").ok


def test_authorizer_is_not_declared_in_message_expressions():
    result = compile_in(
        "authorizer.path('/x').check('get').allowed()", context=cel.Context.MESSAGE_EXPRESSION
    )
    assert "undeclared reference to 'authorizer'" in messages(result)


def test_environments_are_built_once():
    from policyeditor.engine.cel.environment import get_environment

    first = get_environment(37, cel.Context.VALIDATION, cel.Declarations())
    assert get_environment(37, cel.Context.VALIDATION, cel.Declarations()) is first


def test_compile_results_are_cached():
    first = compile_in("object.a == 1")
    assert compile_in("object.a == 1") is first


def test_bad_versions_and_inputs_are_errors_not_exceptions():
    assert "not supported" in messages(compile_in("1 == 1", version="1.12"))
    assert not cel.compile_expression(None, context=cel.Context.VALIDATION, version="1.37").ok  # type: ignore[arg-type]
    assert not compile_in("1 +").ok


def test_string_format_matches_kubernetes_including_scientific_notation():
    # kubernetes/apiextensions-apiserver validation_test.go "strings version 2"
    # From 1.33 (newer golang.org/x/text) `×` has no spaces; `%.2e` is a width (cel-go "%%%de").
    assert cel.evaluate_expression("'%e'.format([3.14])").value == "3.140000×10⁰⁰"
    assert cel.evaluate_expression("'%.2e'.format([0.00123])").value == "1.230000×10⁻⁰³"
    mixed = "'%d %s %f %s %s'.format([1, 'abc', 1.0, duration('1m'), timestamp('2000-01-01T00:00:00.000Z')])"
    assert cel.evaluate_expression(mixed).value == "1 abc 1.000000 60s 2000-01-01T00:00:00Z"
    assert cel.evaluate_expression("'%o %o %o'.format([7, 8, 9])").value == "7 10 11"
    assert cel.evaluate_expression("'%b %b %b'.format([7, 8, 9])").value == "111 1000 1001"
    bad = cel.evaluate_expression("'%d'.format(['x'])")  # a compile error (format_check.py)
    assert not bad.ok and "decimal clause" in bad.error_text()
    dynamic = cel.evaluate_expression("'%d'.format([dyn('x')])")  # only known when it runs
    assert dynamic.error is not None and "decimal clause" in dynamic.error.message


def test_namespace_object_is_null_in_match_conditions():
    namespace = {"metadata": {"name": "prod"}}
    in_condition = cel.evaluate_expression(
        "namespaceObject == null", namespace_object=namespace, context=cel.Context.MATCH_CONDITION
    )
    in_validation = cel.evaluate_expression("namespaceObject == null", namespace_object=namespace)
    assert (in_condition.value, in_validation.value) == (True, False)


def test_params_can_be_declared_and_null():
    result = cel.evaluate_expression("params != null", has_params=True)
    assert result.value is False
