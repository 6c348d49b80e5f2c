"""Only finite numbers and valid Unicode get in from JSON text, and a refusal says where."""

from __future__ import annotations

import json

import pytest

from policyeditor.engine.manifests.jsontext import json_float, may_hold_surrogates, unstorable
from policyeditor.engine.manifests.loading import ManifestError, load_documents, load_json_value


def test_a_number_beyond_float64_is_refused_where_python_would_make_it_infinite():
    assert json.loads("1e400") == float("inf")  # what the hook is for
    with pytest.raises(ValueError, match="unsupported value -1e400: not a finite number"):
        json.loads("-1e400", parse_float=json_float)
    assert json.loads("1e-400", parse_float=json_float) == 0.0  # underflow is a number, as in Go


def test_unstorable_names_the_path_of_a_surrogate_value_and_the_mapping_of_a_surrogate_key():
    assert unstorable({"a": {"b": ["x", "\ud800"]}}) == (
        "a.b[1]: the value holds an unpaired UTF-16 surrogate (\\ud800), which is not valid Unicode"
    )
    problem = unstorable({"a": {"\udfff": 1}})
    assert problem.startswith("a: a field name holds an unpaired UTF-16 surrogate (\\udfff)")
    problem.encode("utf-8")  # the message itself can be shown
    assert unstorable([{"n": float("nan")}]) == "[0].n: unsupported value nan: not a finite number"


def test_storable_values_pass_including_characters_outside_the_basic_plane():
    assert unstorable({"name": "caf\u00e9 \U0001f600", "n": [1, 2.5, None, True]}) is None


def test_only_a_surrogate_escape_makes_the_strings_worth_walking():
    assert may_hold_surrogates('"\\ud83d\\ude00"') and may_hold_surrogates('"\\uDFFF"')
    assert not may_hold_surrogates('"\\u00e9 \U0001f600"')


@pytest.mark.parametrize(
    "text, message",
    [
        ('{"a": 1e400}', "unsupported value 1e400: not a finite number"),
        ('{"a": "\\ud800"}', "a: the value holds an unpaired UTF-16 surrogate"),
        ('{"a": NaN}', "unsupported value NaN: not a finite number"),
        ('{"a": 1, "a": 2}', 'duplicate field "a"'),
        ("[" * 200 + "]" * 200, "nesting deeper than 100 levels"),
        ("[" * 5000 + "]" * 5000, "nesting deeper than 100 levels"),
    ],
)
def test_load_json_value_refuses_what_no_object_may_hold(text, message):
    with pytest.raises(ManifestError, match=message.replace("[", r"\[")):
        load_json_value(text, source="state")


def test_load_json_value_reads_a_surrogate_pair_as_one_character():
    assert load_json_value('{"a": "\\ud83d\\ude00"}') == {"a": "\U0001f600"}


def test_pasted_json_never_yields_infinity_or_a_lone_surrogate():
    # Refused as JSON, the text is read as YAML flow style, where `1e400` is a plain string
    # (as go-yaml reads an out-of-range float) and a lone surrogate escape is an error.
    assert load_documents('{"kind": "ConfigMap", "n": 1e400}') == [
        {"kind": "ConfigMap", "n": "1e400"}
    ]
    with pytest.raises(ManifestError, match="invalid Unicode character escape"):
        load_documents('{"kind": "ConfigMap", "n": "\\ud800"}')


def test_a_value_of_no_json_type_is_named_with_its_path():
    assert unstorable({"a": [b"x"]}) == "a[0]: a bytes value has no JSON form"
