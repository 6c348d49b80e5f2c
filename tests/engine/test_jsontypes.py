"""object_at and list_at: a field of a JSON object, or an empty value when it is not that shape."""

from policyeditor.engine.jsontypes import list_at, object_at


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
