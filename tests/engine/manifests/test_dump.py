"""Dumping manifests: Kubernetes field order, block style, quoting, exact round trips."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from policyeditor.engine.errors import InputError
from policyeditor.engine.manifests import dump as dump_module
from policyeditor.engine.manifests.loading import dump_documents, load_documents


def test_dump_puts_kubernetes_fields_first_and_uses_block_style():
    doc = {
        "spec": {"b": [1, 2]},
        "extra": 1,
        "metadata": {"name": "p"},
        "kind": "K",
        "apiVersion": "v1",
    }
    assert dump_documents([doc]) == (
        "apiVersion: v1\nkind: K\nmetadata:\n  name: p\nspec:\n  b:\n  - 1\n  - 2\nextra: 1\n"
    )


def test_dump_writes_multi_line_cel_as_literal_block():
    doc = {"spec": {"expression": "object.a > 1 &&\n  object.b < 2"}}
    text = dump_documents([doc])
    assert "expression: |-\n    object.a > 1 &&\n      object.b < 2\n" in text
    assert load_documents(text) == [doc]


def test_dump_quotes_strings_that_look_like_other_types():
    doc = {
        "a": "yes",
        "b": "1.0",
        "c": "null",
        "d": "2024-01-01",
        "e": "y",
        "f": "0x1f",
        "g": "true",
    }
    text = dump_documents([doc])
    for value in ("yes", "1.0", "null", "2024-01-01", "0x1f", "true", "y"):
        assert f"'{value}'" in text or f'"{value}"' in text
    assert load_documents(text) == [doc]


def test_dump_separates_documents_and_never_emits_tags_or_anchors():
    shared = {"k": "v"}
    text = dump_documents([{"a": shared, "b": shared}, {"c": (1, 2)}])
    assert text == "a:\n  k: v\nb:\n  k: v\n---\nc:\n- 1\n- 2\n"
    assert "!!" not in text and "&" not in text


def test_dump_refuses_values_json_cannot_hold():
    with pytest.raises(InputError, match=r"spec.x: cannot dump a set"):
        dump_documents([{"spec": {"x": {1}}}])
    with pytest.raises(InputError, match="not a finite number"):
        dump_documents([{"a": float("nan")}])
    with pytest.raises(InputError, match="keys must be strings"):
        dump_documents([{1: "a"}])


def test_dump_of_nothing_is_empty():
    assert dump_documents([]) == ""


# Strings YAML finds hard: type look-alikes, indicators, whitespace and line breaks of all kinds.
_tricky_text = st.text(
    alphabet=st.sampled_from(list("ab :#-?&*!|>'\"%@`{}[],\n\t\r ~0.1yYnN\u00e9\u2028\x85\ufeff")),
    max_size=12,
) | st.sampled_from(["yes", "No", "null", "~", "1e3", "0o17", "2024-01-01", "=", "<<", "", " "])
_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63)
    | st.floats(allow_nan=False, allow_infinity=False)
    | _tricky_text
)
_values = st.recursive(
    _scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(_tricky_text, children, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.dictionaries(_tricky_text, _values, max_size=5), max_size=3))
def test_load_of_dump_round_trips_exactly(docs):
    docs = [doc for doc in docs if doc]  # empty documents are skipped on load
    docs = [
        doc
        for doc in docs
        if not (isinstance(doc.get("kind"), str) and doc["kind"].endswith("List"))
    ]
    loaded = load_documents(dump_documents(docs))
    assert loaded == docs
    assert [type(v) for d in loaded for v in d.values()] == [
        type(v) for d in docs for v in d.values()
    ]


def test_dump_quotes_strings_that_go_yaml_would_read_as_numbers():
    values = ["1e3", "0o17", "0b101", "08", ".5", "1_000", "-1", "7", "y", "~", "<<"]
    text = dump_documents([{"v": values}])
    for value in values:
        assert f'- "{value}"' in text or f"- '{value}'" in text
    assert load_documents(text) == [{"v": values}]
    # Not numbers to go-yaml either (no ParseFloat for "+inf" without a dot form): they stay plain.
    assert dump_documents([{"v": ["1.2.3", "+inf", "1:20"]}]) == "v:\n- 1.2.3\n- +inf\n- '1:20'\n"


def _pure_python_dump(monkeypatch, docs):
    monkeypatch.setattr(dump_module, "FAST_DUMPER", None)
    try:
        return dump_documents(docs)
    finally:
        monkeypatch.undo()


_any_text = st.text(
    alphabet=st.sampled_from(
        list("ab :#-?&*!|>'\"%@`{}[],\n\t\r ~0.1yYnN\u00e9\u4e2d\u2028\x85\ufeff\x00\x1b\ue000")
        + ["\U0001f451"]
    ),
    max_size=12,
)


@settings(max_examples=1000, deadline=None, derandomize=True)
@given(st.dictionaries(_any_text, st.lists(_any_text, max_size=3) | _any_text, max_size=5))
def test_dump_writes_the_same_text_with_or_without_libyamls_emitter(doc):
    # The fast emitter is used only where its text is the pure-Python emitter's, to the byte.
    with pytest.MonkeyPatch.context() as monkeypatch:
        assert dump_documents([doc]) == _pure_python_dump(monkeypatch, [doc])


def test_dump_writes_every_test_document_as_the_pure_python_emitter_does(monkeypatch):
    documents = []
    for path in sorted((Path(__file__).parents[2] / "data").rglob("*.yaml")):
        try:
            documents += load_documents(path.read_text(encoding="utf-8"))
        except (InputError, UnicodeDecodeError):
            continue
    assert len(documents) > 200
    fast = [dump_documents([doc]) for doc in documents]
    assert fast == [_pure_python_dump(monkeypatch, [doc]) for doc in documents]
