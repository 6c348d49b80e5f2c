"""The JSON kind of a decoded value, and each caller's name for it."""

from __future__ import annotations

import pytest

from policyeditor.engine.jsonkinds import json_kind, type_name


@pytest.mark.parametrize(
    ("value", "kind"),
    [
        (None, "null"),
        (True, "boolean"),
        (3, "integer"),
        (1.5, "number"),
        ("x", "string"),
        ([1], "array"),
        ({"a": 1}, "object"),
        (b"x", "other"),
    ],
)
def test_every_decoded_value_has_its_json_kind(value, kind):
    assert json_kind(value) == kind


def test_each_message_names_a_kind_in_the_words_of_the_code_it_mirrors():
    assert type_name(1.5, "cel") == "double"
    assert type_name(None, "go") == "<nil>"
    assert type_name([1], "unmarshal") == "array"
    assert type_name({}, "apply") == "map"
    assert type_name(True, "manifest") == "a boolean"
    assert type_name(b"x", "api") == "an object"


def test_a_kind_a_message_has_no_word_for_is_named_by_its_python_type():
    assert type_name("x", "cel") == "str"
    assert type_name(None, "apply") == "NoneType"
    assert type_name({}, "manifest") == "dict"
