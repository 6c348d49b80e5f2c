"""Structural defaulting of custom resources: `default:` fills missing fields after pruning."""

from __future__ import annotations

from policyeditor.engine import schemas
from policyeditor.engine.schemas.objects import check_custom_object
from tests.crd_cases import BY_ID, widget, widget_crd

SPEC = {
    "type": "object",
    "properties": {
        "size": {"type": "integer", "default": 3},
        "mode": {"type": "string", "default": "Auto"},
        "tags": {"type": "array", "items": {"type": "string"}, "default": ["a"]},
        "limits": {
            "type": "object",
            "properties": {"cpu": {"type": "string", "default": "1"}},
        },
        "ports": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"protocol": {"type": "string", "default": "TCP"}},
            },
        },
        "extra": {
            "type": "object",
            "x-kubernetes-preserve-unknown-fields": True,
            "properties": {"known": {"type": "string", "default": "k"}},
        },
    },
}


def _check(spec: dict) -> dict:
    obj = widget()
    obj["spec"] = spec  # the given dict itself: the check must not change it
    with schemas.using_crds(schemas.load_crds([widget_crd(SPEC)])):
        check = check_custom_object(obj)
    assert check is not None and check.errors == []
    return check.object["spec"]


def test_missing_fields_of_present_objects_get_their_defaults():
    spec = _check({"size": 5, "limits": {}, "ports": [{}, {"protocol": "UDP"}]})
    assert spec["size"] == 5  # given values stay
    assert spec["mode"] == "Auto" and spec["tags"] == ["a"]
    assert spec["limits"] == {"cpu": "1"}
    assert spec["ports"] == [{"protocol": "TCP"}, {"protocol": "UDP"}]
    assert "extra" not in spec  # an absent object is not created


def test_a_null_where_the_schema_is_not_nullable_is_defaulted():
    assert _check({"mode": None})["mode"] == "Auto"


def test_inside_preserved_unknown_fields_only_specified_properties_are_defaulted():
    spec = _check({"extra": {"free": {"x": 1}}})
    assert spec["extra"] == {"free": {"x": 1}, "known": "k"}


def test_defaults_come_after_pruning_and_the_given_object_is_not_changed():
    given = {"unknown": 1}
    spec = _check(given)
    assert "unknown" not in spec and spec["size"] == 3
    assert given == {"unknown": 1}


def test_a_real_crds_defaults_fill_a_gateway_listener():
    case = BY_ID["gateway"]
    with schemas.using_crds(schemas.load_crds(case.crds())):
        check = check_custom_object(case.object("gw"))
    assert check is not None and check.errors == []
    listener = check.object["spec"]["listeners"][0]
    assert listener["allowedRoutes"] == {"namespaces": {"from": "Same"}}
