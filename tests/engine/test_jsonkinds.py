"""The JSON kind of a decoded value, and each caller's name for it."""

from __future__ import annotations

import pytest

from policyeditor.engine.jsonkinds import json_kind, kind_name


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


def test_a_kind_without_a_name_falls_back_to_the_default_then_the_python_type():
    names = {"boolean": "bool"}
    assert kind_name(False, names) == "bool"
    assert kind_name(1, names, "value") == "value"
    assert kind_name(1, names) == "int"
