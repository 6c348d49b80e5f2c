"""A CRD's x-kubernetes-validations rules: compile errors at load, evaluation per schema node."""

from __future__ import annotations

import pytest

from policyeditor.engine import schemas
from policyeditor.engine.cel.crd_rule_evaluation import errors_after_schema, rule_errors
from tests.crd_cases import widget, widget_crd


def _schema(spec_rules=(), size_rules=(), item_rules=()) -> dict:
    return {
        "type": "object",
        "properties": {
            "spec": {
                "type": "object",
                "x-kubernetes-validations": list(spec_rules),
                "properties": {
                    "size": {"type": "integer", "x-kubernetes-validations": list(size_rules)},
                    "color": {"type": "string"},
                    "ports": {
                        "type": "array",
                        "x-kubernetes-list-type": "map",
                        "x-kubernetes-list-map-keys": ["name"],
                        "items": {
                            "type": "object",
                            "x-kubernetes-validations": list(item_rules),
                            "properties": {
                                "name": {"type": "string"},
                                "port": {"type": "integer"},
                            },
                        },
                    },
                },
            }
        },
    }


def _texts(errors) -> list[str]:
    return [str(e) for e in errors]


def _failing(obj: dict, old: dict | None = None, **rules) -> list[str]:
    """The rule failures on obj (old: the stored object on UPDATE) with `_schema(**rules)`."""
    return _texts(rule_errors(obj, _schema(**rules), old))


def test_a_rule_on_self_that_holds_reports_nothing():
    schema = _schema(spec_rules=[{"rule": "self.size <= 10"}])
    assert rule_errors(widget(size=3), schema) == []


def test_a_failing_rule_without_a_message_reads_failed_rule_with_the_node_type():
    assert _failing(widget(size=30), spec_rules=[{"rule": "self.size <= 10"}]) == [
        'spec: Invalid value: "object": failed rule: self.size <= 10'
    ]


def test_a_failing_rule_on_a_scalar_shows_its_schema_type_and_message():
    rules = [{"rule": "self % 2 == 0", "message": " must be even "}]
    assert _failing(widget(size=3), size_rules=rules) == [
        'spec.size: Invalid value: "integer": must be even'
    ]


MESSAGE_EXPRESSION = [
    {
        "rule": "self < 5",
        "message": "too big",
        "messageExpression": "'size ' + string(self) + ' is over 5'",
    },
    {"rule": "self < 4", "message": "fallback", "messageExpression": "''"},
]
FIELD_PATH_AND_REASON = [
    {
        "rule": "has(self.color)",
        "message": "color is needed",
        "fieldPath": ".color",
        "reason": "FieldValueRequired",
    },
    {"rule": "self.size > 0", "message": "no", "reason": "FieldValueForbidden"},
]


@pytest.mark.parametrize(
    ("obj", "rules", "expected"),
    [
        pytest.param(
            widget(size=7),
            {"size_rules": MESSAGE_EXPRESSION},
            [
                'spec.size: Invalid value: "integer": size 7 is over 5',
                'spec.size: Invalid value: "integer": fallback',
            ],
            id="messageExpression-else-message",
        ),
        pytest.param(
            widget(size=0),
            {"spec_rules": FIELD_PATH_AND_REASON},
            ["spec.color: Required value: color is needed", "spec: Forbidden: no"],
            id="fieldPath-and-reason",
        ),
    ],
)
def test_message_expression_field_path_and_reason_shape_the_error(obj, rules, expected):
    assert _failing(obj, **rules) == expected


def test_a_root_rule_failing_is_reported_on_no_path():
    schema = _schema()
    schema["x-kubernetes-validations"] = [{"rule": "self.metadata.name != 'w'", "message": "no w"}]
    assert _texts(rule_errors(widget(size=1), schema)) == ['<nil>: Invalid value: "object": no w']


def test_the_root_self_sees_only_the_name_and_generate_name_of_metadata():
    schema = _schema()
    schema["x-kubernetes-validations"] = [{"rule": "!has(self.metadata.labels)"}]
    obj = widget(size=1)
    obj["metadata"]["labels"] = {"a": "b"}
    assert rule_errors(obj, schema) == []


def test_a_transition_rule_runs_only_on_update_where_the_old_value_exists():
    schema = _schema(size_rules=[{"rule": "self >= oldSelf", "message": "may not shrink"}])
    assert rule_errors(widget(size=1), schema) == []  # CREATE: no oldSelf
    assert rule_errors(widget(size=1), schema, widget(color="red")) == []  # no old size
    assert _texts(rule_errors(widget(size=1), schema, widget(size=2))) == [
        'spec.size: Invalid value: "integer": may not shrink'
    ]
    assert rule_errors(widget(size=3), schema, widget(size=2)) == []


def test_map_list_items_correlate_with_the_old_items_by_key():
    rules = [{"rule": "self.port == oldSelf.port", "message": "immutable"}]
    old = widget(ports=[{"name": "a", "port": 1}, {"name": "b", "port": 2}])
    new = widget(
        ports=[{"name": "b", "port": 2}, {"name": "a", "port": 5}, {"name": "c", "port": 9}]
    )
    assert _failing(new, old, item_rules=rules) == [
        'spec.ports[1]: Invalid value: "object": immutable'
    ]


def test_optional_old_self_runs_on_create_with_an_empty_optional():
    rule = {
        "rule": "oldSelf.hasValue() ? self >= oldSelf.value() : self == 1",
        "message": "starts at 1, never shrinks",
        "optionalOldSelf": True,
    }
    schema = _schema(size_rules=[rule])
    assert rule_errors(widget(size=1), schema) == []
    assert _texts(rule_errors(widget(size=2), schema)) == [
        'spec.size: Invalid value: "integer": starts at 1, never shrinks'
    ]
    assert rule_errors(widget(size=4), schema, widget(size=3)) == []
    assert len(rule_errors(widget(size=2), schema, widget(size=3))) == 1


def test_a_runtime_error_reads_as_kube_apiserver_words_it():
    assert _failing(widget(size=1), spec_rules=[{"rule": "self.color == 'red'"}]) == [
        "spec: Invalid value: \"object\": no such key: color evaluating rule: self.color == 'red'"
    ]


def _loop_schema() -> dict:
    item = {
        "type": "object",
        "properties": {"xs": {"type": "array", "items": {"type": "integer"}}},
        "x-kubernetes-validations": [
            {"rule": "self.xs.all(a, self.xs.all(b, a + b >= 0))", "message": "loops"}
        ],
    }
    return {
        "type": "object",
        "properties": {
            "spec": {
                "type": "object",
                "properties": {"items": {"type": "array", "items": item}},
            }
        },
    }


def test_a_rule_over_the_per_call_cost_limit_is_stopped_with_the_api_servers_words():
    obj = widget(items=[{"xs": list(range(60))}])
    assert rule_errors(obj, _loop_schema()) == []
    assert _texts(rule_errors(obj, _loop_schema(), per_call_limit=5_000)) == [
        'spec.items[0]: Invalid value: "object": operation cancelled: actual cost limit exceeded: '
        "call cost exceeds limit for rule: loops"
    ]


def test_the_cost_budget_of_one_object_stops_all_further_rules():
    obj = widget(items=[{"xs": list(range(10))} for _ in range(5)])  # about 650 each
    assert rule_errors(obj, _loop_schema()) == []
    assert _texts(rule_errors(obj, _loop_schema(), budget=1_500)) == [
        'spec.items[2]: Invalid value: "object": validation failed due to running out of cost '
        "budget, no further validation rules will be run"
    ]


def test_rules_do_not_run_when_the_schema_found_a_value_of_the_wrong_type():
    from policyeditor.engine import apimachinery

    schema = _schema(spec_rules=[{"rule": "false"}])
    wrong = [
        apimachinery.invalid(
            "spec.size", "x", 'spec.size in body must be of type integer: "string"'
        )
    ]
    assert _texts(errors_after_schema(wrong, widget(size="x"), schema)) == [
        '<nil>: Invalid value: "null": some validation rules were not checked because the object '
        "was invalid; correct the existing errors to complete validation"
    ]
    # A required field missing blocks nothing: the rules run and add their errors.
    missing = [apimachinery.required("spec.color")]
    assert _texts(errors_after_schema(missing, widget(size=1), schema)) == [
        'spec: Invalid value: "object": failed rule: false'
    ]
    # A CRD without rules has no rule validator at all.
    assert errors_after_schema(wrong, widget(size=1), _schema()) == []


def _crd(rules: list[dict]) -> dict:
    return widget_crd(root=_schema(spec_rules=rules))


def test_a_crd_whose_rule_does_not_compile_is_refused_when_loaded():
    with pytest.raises(schemas.CrdError) as caught:
        schemas.load_crds([_crd([{"rule": "self.size >"}])])
    text = str(caught.value)
    assert text.startswith('CustomResourceDefinition.apiextensions.k8s.io "widgets.example.com"')
    assert (
        "spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0]"
        '.rule: Invalid value: "self.size >": compilation failed: ERROR: <input>:1:12:'
    ) in text


def test_a_crd_rule_with_an_undeclared_variable_or_a_bad_message_expression_is_refused():
    with pytest.raises(schemas.CrdError) as caught:
        schemas.load_crds(
            [_crd([{"rule": "object.size > 1"}, {"rule": "true", "messageExpression": "1 +"}])]
        )
    text = str(caught.value)
    assert "undeclared reference to 'object'" in text
    assert "x-kubernetes-validations[1].messageExpression" in text


def test_optional_old_self_without_old_self_in_the_rule_is_refused():
    with pytest.raises(schemas.CrdError, match="may not be set if oldSelf is not used in rule"):
        schemas.load_crds([_crd([{"rule": "self.size > 1", "optionalOldSelf": True}])])


def test_a_crd_with_good_rules_loads():
    registry = schemas.load_crds([_crd([{"rule": "self.size > 1", "message": "m"}])])
    schema = registry.schema_for("example.com", "v1", "Widget")
    assert schema is not None
    assert _texts(rule_errors(widget(size=1), schema)) == ['spec: Invalid value: "object": m']
    assert rule_errors(widget(size=2), schema) == []


def test_an_unchanged_value_keeps_passing_on_update_as_validation_ratcheting_allows():
    schema = _schema(size_rules=[{"rule": "self < 10", "message": "under 10"}])
    assert rule_errors(widget(size=12), schema, widget(size=12)) == []
    assert _texts(rule_errors(widget(size=13), schema, widget(size=12))) == [
        'spec.size: Invalid value: "integer": under 10'
    ]
    # Only values that are really the same ratchet (1.0 is not 1 to the API server).
    schema = _schema(spec_rules=[{"rule": "self.size < 1", "message": "small"}])
    assert len(rule_errors(widget(size=1), schema, widget(size=1.0))) == 1
    # A transition rule is never ratcheted.
    schema = _schema(size_rules=[{"rule": "self != oldSelf", "message": "must change"}])
    assert len(rule_errors(widget(size=1), schema, widget(size=1))) == 1
