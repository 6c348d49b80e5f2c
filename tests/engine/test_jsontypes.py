"""object_at and list_at: a field of a JSON object, or an empty value when it is not that shape;
same_json: JSON equality that keeps integers, floats and booleans apart."""

from policyeditor.engine.jsontypes import list_at, object_at, same_json


def test_object_at_returns_the_mapping_itself_so_callers_can_update_it():
    spec = {"names": {"kind": "Widget"}}
    found = object_at(spec, "names")
    assert found == {"kind": "Widget"}
    assert found is spec["names"]


def test_object_at_is_empty_for_a_missing_field_a_wrong_shape_or_a_non_mapping():
    assert object_at({}, "spec") == {}
    assert object_at({"spec": "not a mapping"}, "spec") == {}
    assert object_at({"spec": ["a", "list"]}, "spec") == {}
    assert object_at(["not", "a", "mapping"], "spec") == {}
    assert object_at(None, "spec") == {}


def test_list_at_returns_the_list_and_is_empty_for_anything_else():
    versions = [{"name": "v1"}]
    assert list_at({"versions": versions}, "versions") is versions
    assert list_at({"versions": {"name": "v1"}}, "versions") == []
    assert list_at({"versions": "v1"}, "versions") == []
    assert list_at("not a mapping", "versions") == []


def test_same_json_tells_an_integer_from_a_float_and_a_boolean_at_any_depth():
    assert not same_json(1, 1.0)
    assert not same_json(1, True)
    assert not same_json({"a": [0]}, {"a": [False]})
    assert not same_json({"a": {"b": 2}}, {"a": {"b": 2.0}})


def test_same_json_compares_keys_lengths_and_values():
    assert same_json({"a": [1, "x", None], "b": {}}, {"b": {}, "a": [1, "x", None]})
    assert not same_json({"a": 1}, {"a": 1, "b": 2})
    assert not same_json([1, 2], [1, 2, 3])
    assert not same_json([1, 2], [2, 1])
