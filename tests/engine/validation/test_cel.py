"""CEL compilation during validation: each expression in its own context, errors on its field."""

from __future__ import annotations

import copy

from policyeditor.engine.validation.documents import validate_document
from tests.engine.validation.fixtures import MAP, VAP
from tests.engine.validation.fixtures import with_value as _with


def _rendered(doc, **kwargs) -> list[str]:
    return [str(error) for error in validate_document(doc, **kwargs)]


def test_compile_errors_carry_the_cel_go_report():
    doc = _with(VAP, "spec.validations", [{"expression": "object.x in [1, 2, "}])
    (line,) = _rendered(doc)
    assert line.startswith(
        'spec.validations[0].expression: Invalid value: "object.x in [1, 2, ": compilation failed: '
        "ERROR: <input>:1:20: Syntax error: missing ']' at '<EOF>'"
    )
    assert line.endswith("\n | object.x in [1, 2, \n | ...................^")


def test_validations_must_be_boolean():
    doc = _with(VAP, "spec.validations", [{"expression": "object.spec.flag"}])
    assert _rendered(doc) == [
        'spec.validations[0].expression: Invalid value: "object.spec.flag": must evaluate to bool but got dyn'
    ]


def test_message_expressions_must_be_strings_and_have_no_authorizer():
    validations = [
        {"expression": "true", "messageExpression": "0 == 0"},
        {"expression": "true", "messageExpression": "authorizer.path('/x').check('get').reason()"},
    ]
    rendered = _rendered(_with(VAP, "spec.validations", validations))
    assert rendered[0] == (
        'spec.validations[0].messageExpression: Invalid value: "0 == 0": must evaluate to string but got bool'
    )
    assert (
        "compilation failed: ERROR: <input>:1:1: undeclared reference to 'authorizer'"
        in rendered[1]
    )


def test_audit_annotations_must_be_string_or_null_and_compile_trimmed():
    annotations = [
        {"key": "a", "valueExpression": "true"},
        {"key": "b", "valueExpression": "null"},
        {"key": "c", "valueExpression": " 1 +"},
    ]
    rendered = _rendered(_with(VAP, "spec.auditAnnotations", annotations))
    assert rendered[0] == (
        'spec.auditAnnotations[0].valueExpression: Invalid value: "true": '
        "must evaluate to one of [string null_type] but got bool"
    )
    # The error shows the field's text, the column counts from the trimmed expression.
    assert rendered[1].startswith(
        'spec.auditAnnotations[2].valueExpression: Invalid value: " 1 +": compilation failed: ERROR: <input>:1:4:'
    )
    assert len(rendered) == 2


def test_validation_expressions_compile_untrimmed():
    doc = _with(VAP, "spec.validations", [{"expression": " 1 +"}])
    assert _rendered(doc)[0].startswith(
        'spec.validations[0].expression: Invalid value: " 1 +": compilation failed: ERROR: <input>:1:5:'
    )


def test_match_conditions_are_boolean_trimmed_and_see_no_variables():
    doc = _with(
        VAP,
        "spec.matchConditions",
        [
            {"name": "a", "expression": "6"},
            {"name": "b", "expression": "variables.x == 1"},
            {"name": "c", "expression": " 1 +"},
        ],
    )
    doc["spec"]["variables"] = [{"name": "x", "expression": "1"}]
    rendered = _rendered(doc)
    assert (
        rendered[0]
        == 'spec.matchConditions[0].expression: Invalid value: "6": must evaluate to bool but got int'
    )
    assert "undeclared reference to 'variables'" in rendered[1]
    assert rendered[2].startswith(
        'spec.matchConditions[2].expression: Invalid value: "1 +": compilation failed: ERROR: <input>:1:4:'
    )


def test_params_are_declared_only_with_a_param_kind():
    doc = _with(VAP, "spec.matchConditions", [{"name": "p", "expression": "params.x == 1"}])
    assert "undeclared reference to 'params'" in _rendered(doc)[0]
    doc["spec"]["paramKind"] = {"apiVersion": "v1", "kind": "ConfigMap"}
    assert _rendered(doc) == []


def test_variables_are_typed_in_order():
    variables = [{"name": "x", "expression": "1"}, {"name": "y", "expression": "variables.x + 'a'"}]
    rendered = _rendered(_with(VAP, "spec.variables", variables))
    assert rendered == [
        "spec.variables[1].expression: Invalid value: \"variables.x + 'a'\": compilation failed: "
        "ERROR: <input>:1:13: found no matching overload for '_+_' applied to '(int, string)'\n"
        " | variables.x + 'a'\n | ............^"
    ]
    valid = _with(VAP, "spec.variables", [{"name": "x", "expression": "1"}])
    valid["spec"]["validations"] = [{"expression": "variables.x == 1"}]
    assert _rendered(valid) == []


def test_mutation_expressions_must_build_objects_or_patches():
    doc = copy.deepcopy(MAP)
    doc["spec"]["mutations"] = [
        {"patchType": "ApplyConfiguration", "applyConfiguration": {"expression": "1 < 2"}},
        {"patchType": "JSONPatch", "jsonPatch": {"expression": " 1"}},
        {
            "patchType": "JSONPatch",
            "jsonPatch": {
                "expression": "[JSONPatch{op: 'add', path: '/metadata/labels/' + jsonpatch.escapeKey('a/b'), value: params.x}]"
            },
        },
    ]
    assert _rendered(doc, version="1.34") == [
        'spec.mutations[0].applyConfiguration.expression: Invalid value: "1 < 2": must evaluate to Object but got bool',
        'spec.mutations[1].jsonPatch.expression: Invalid value: "1": must evaluate to list(JSONPatch) but got int',
    ]


def test_new_expressions_use_the_previous_release_libraries():
    doc = _with(VAP, "spec.validations", [{"expression": "[3, 1].sort() == [1, 3]"}])
    assert "requires Kubernetes 1.34" in _rendered(doc, version="1.34")[0]
    assert _rendered(doc, version="1.35") == []


def test_unchanged_expressions_keep_validating_on_update():
    doc = _with(VAP, "spec.validations", [{"expression": "[3, 1].sort() == [1, 3]"}])
    assert _rendered(doc, version="1.34", old=doc) == []
    other = _with(VAP, "spec.validations", [{"expression": "true"}])
    assert _rendered(doc, version="1.34", old=other) != []


def test_object_types_exist_only_in_mutation_expressions():
    doc = copy.deepcopy(MAP)
    doc["spec"]["variables"] = [{"name": "o", "expression": "Object{}"}]
    rendered = _rendered(doc, version="1.34")
    assert len(rendered) == 1
    assert rendered[0].startswith(
        'spec.variables[0].expression: Invalid value: "Object{}": compilation failed: '
    )
