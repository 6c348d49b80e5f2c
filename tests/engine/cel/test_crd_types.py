"""A CRD rule's `self` and `oldSelf` typed by the schema: compile errors at load, typed values."""

from __future__ import annotations

import pytest

from policyeditor.engine import schemas
from policyeditor.engine.cel.crd_rule_evaluation import rule_errors
from policyeditor.engine.cel.crd_types import escape
from tests.crd_cases import widget, widget_crd

WHERE = "spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0]"
SPEC = {
    "type": "object",
    "properties": {
        "size": {"type": "integer"},
        "color": {"type": "string"},
        "ratio": {"type": "number"},
        "start": {"type": "string", "format": "date-time"},
        "day": {"type": "string", "format": "date"},
        "timeout": {"type": "string", "format": "duration"},
        "data": {"type": "string", "format": "byte"},
        "port": {"x-kubernetes-int-or-string": True},
        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        "extra": {
            "type": "object",
            "x-kubernetes-preserve-unknown-fields": True,
            "properties": {"known": {"type": "string"}},
        },
        "template": {
            "type": "object",
            "x-kubernetes-embedded-resource": True,
            "x-kubernetes-preserve-unknown-fields": True,
        },
        "x-y": {"type": "integer"},
        "namespace": {"type": "string"},
    },
}


def _spec(*rules: dict) -> dict:
    return {**SPEC, "x-kubernetes-validations": list(rules)}


def _refusal(*rules: dict, root_rules: tuple = ()) -> str:
    root = {"type": "object", "properties": {"spec": _spec(*rules)}}
    if root_rules:
        root["x-kubernetes-validations"] = list(root_rules)
    with pytest.raises(schemas.CrdError) as caught:
        schemas.load_crds([widget_crd(root=root)])
    return str(caught.value)


def _loads(*rules: dict) -> dict:
    """The spec schema of a CRD with these rules, once the CRD loaded."""
    root = {"type": "object", "properties": {"spec": _spec(*rules)}}
    registry = schemas.load_crds([widget_crd(root=root)])
    loaded = registry.schema_for("example.com", "v1", "Widget")
    assert loaded is not None
    return root


def _failures(root: dict, obj: dict, old: dict | None = None) -> list[str]:
    return [str(e) for e in rule_errors(obj, root, old)]


def test_a_rule_reading_an_undefined_field_is_refused_in_the_api_servers_words():
    text = _refusal({"rule": "self.colr == 'red'"})
    assert (
        f"{WHERE}.rule: Invalid value: \"self.colr == 'red'\": compilation failed: "
        "ERROR: <input>:1:5: undefined field 'colr'\n | self.colr == 'red'\n | ....^"
    ) in text


def test_a_rule_comparing_values_of_different_types_is_refused():
    text = _refusal({"rule": "self.size == 'big'"})
    assert (
        "compilation failed: ERROR: <input>:1:11: found no matching overload for '_==_' "
        "applied to '(int, string)'"
    ) in text
    # a number is a double: an int literal does not compare equal without a conversion
    assert "'(double, int)'" in _refusal({"rule": "self.ratio == 1"})


def test_a_message_expression_reading_an_undefined_field_is_refused():
    text = _refusal({"rule": "true", "messageExpression": "'size ' + string(self.sise)"})
    assert (
        f"{WHERE}.messageExpression: Invalid value: \"'size ' + string(self.sise)\": "
        "messageExpression compilation failed: ERROR: <input>:1:22: undefined field 'sise'"
    ) in text


def test_at_the_root_only_kind_api_version_and_the_name_of_metadata_are_readable():
    _loads()  # the rules below sit at the root
    root_ok = {"rule": "self.apiVersion != '' && self.kind == 'Widget' && self.metadata.name != ''"}
    registry = schemas.load_crds(
        [
            widget_crd(
                root={
                    "type": "object",
                    "properties": {"spec": SPEC},
                    "x-kubernetes-validations": [root_ok],
                }
            )
        ]
    )
    assert registry.crds
    text = _refusal(root_rules=({"rule": "self.metadata.labels.size() < 5"},))
    assert "undefined field 'labels'" in text


def test_preserved_unknown_fields_and_embedded_resources_expose_only_what_the_schema_names():
    # SchemaDeclType: an object's CEL type has its properties only; an embedded resource adds
    # kind, apiVersion and metadata (name, generateName).
    _loads({"rule": "self.extra.known != '' && self.template.metadata.name != ''"})
    assert "undefined field 'free'" in _refusal({"rule": "self.extra.free == 1"})
    assert "undefined field 'spec'" in _refusal({"rule": "has(self.template.spec)"})


def test_maps_and_int_or_string_stay_open():
    root = _loads(
        {
            "rule": "self.labels.all(k, self.labels[k] != '') && (self.port == 80 || self.port == 'http')"
        }
    )
    assert _failures(root, widget(labels={"a": "b"}, port="http")) == []
    assert len(_failures(root, widget(labels={"a": "b"}, port=81))) == 1


def test_property_names_are_read_by_their_escaped_cel_names():
    assert escape("x-y") == "x__dash__y"
    assert escape("namespace") == "__namespace__"
    assert escape("a__b.c/d") == "a__underscores__b__dot__c__slash__d"
    assert escape("1st") is None and escape("a b") is None
    root = _loads({"rule": "self.x__dash__y == 2 && self.__namespace__ == 'ns'"})
    assert _failures(root, widget(**{"x-y": 2, "namespace": "ns"})) == []
    assert "undefined field 'x'" in _refusal({"rule": "self.x == 2"})


def test_a_date_time_is_a_timestamp_and_a_duration_a_duration():
    root = _loads(
        {
            "rule": "self.start < timestamp('2030-01-01T00:00:00Z') && self.start.getFullYear() == 2026",
            "message": "before 2030",
        },
        {"rule": "self.timeout <= duration('1m')", "message": "at most a minute"},
    )
    good = widget(start="2026-05-01T10:00:00.5Z", timeout="30s")
    assert _failures(root, good) == []
    bad = widget(start="2031-01-01T00:00:00Z", timeout="1h30m")
    assert _failures(root, bad) == [
        'spec: Invalid value: "object": before 2030',
        'spec: Invalid value: "object": at most a minute',
    ]


def test_a_date_bytes_and_numbers_are_bound_as_their_cel_types():
    root = _loads(
        {"rule": "self.day == timestamp('2026-02-03T00:00:00Z')", "message": "day"},
        {"rule": "self.data == b'hi'", "message": "data"},
        {"rule": "self.ratio == 1.0", "message": "ratio"},
    )
    assert _failures(root, widget(day="2026-02-03", data="aGk=", ratio=1)) == []
    assert len(_failures(root, widget(day="2026-02-04", data="aGk=", ratio=2))) == 2


def test_old_self_is_typed_like_self():
    root = _loads({"rule": "self.start >= oldSelf.start", "message": "may not move back"})
    old = widget(start="2026-01-01T00:00:00Z")
    # Compared as instants, not as text: 00:30 at UTC-1 is later, 00:30 at UTC+1 earlier.
    assert _failures(root, widget(start="2025-12-31T23:30:00-01:00"), old) == []
    assert _failures(root, widget(start="2026-01-01T00:30:00+01:00"), old) == [
        'spec: Invalid value: "object": may not move back'
    ]


def test_a_rule_whose_typed_result_is_not_a_bool_is_refused():
    # compilation.go, compileRule: "cel expression must evaluate to a bool", without the
    # "compilation failed" prefix; a boolean field is a rule on its own.
    for rule in ("1 + 1", "self.size", "self.port", "self.labels"):
        assert (
            f'{WHERE}.rule: Invalid value: "{rule}": cel expression must evaluate to a bool'
        ) in _refusal({"rule": rule})
    _loads({"rule": "self.extra.known == '' ? true : self.size > 1"})
    flag = {**SPEC, "properties": {**SPEC["properties"], "on": {"type": "boolean"}}}
    flag["x-kubernetes-validations"] = [{"rule": "self.on"}]
    root = {"type": "object", "properties": {"spec": flag}}
    assert schemas.load_crds([widget_crd(root=root)]).crds
