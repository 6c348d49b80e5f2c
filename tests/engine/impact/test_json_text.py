"""The JSON dump reader: values cut by block ends, the text-side limits, and where errors are."""

from __future__ import annotations

import io
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from policyeditor.engine.impact import DumpError, iter_objects, json_text, limits, open_dump
from tests.engine.impact.helpers import deployment, kubectl_json


def read(data: str | bytes) -> list[dict]:
    raw = data.encode() if isinstance(data, str) else data
    return list(iter_objects(open_dump(io.BytesIO(raw))))


def obj(**fields: object) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", **fields}


# JSON values as a dump's objects hold them: every escape, non-ASCII text, numbers of all forms.
scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(blacklist_categories=["Cs"]), max_size=12)
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.text(max_size=6).filter(lambda k: k != "managedFields"), inner, max_size=4
        )
    ),
    max_leaves=20,
)


@settings(max_examples=150, deadline=None)
@given(
    data=st.lists(values, min_size=1, max_size=4),
    block=st.integers(1, 40),
    indent=st.sampled_from([None, 0, 2]),
    ensure_ascii=st.booleans(),
)
def test_any_dump_reads_as_json_loads_reads_it_whatever_the_block_size(
    data, block, indent, ensure_ascii
):
    items = [obj(data=value, n=index) for index, value in enumerate(data)]
    text = json.dumps(
        {"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"n": 10**20}},
        indent=indent,
        ensure_ascii=ensure_ascii,
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(json_text, "BLOCK_BYTES", block)
        assert read(text) == json.loads(text)["items"]
        # The same objects as top-level documents: numbers cut at a block's end read whole.
        assert read(" ".join(json.dumps(item, indent=indent) for item in items)) == items


def test_kubectl_output_cut_into_tiny_blocks_reads_the_same_objects(monkeypatch):
    items = [deployment(f"d{i}", i) for i in range(5)]
    whole = read(kubectl_json(items))
    monkeypatch.setattr(json_text, "BLOCK_BYTES", 3)
    assert read(kubectl_json(items)) == whole
    assert [o["metadata"]["name"] for o in whole] == [f"d{i}" for i in range(5)]


def test_a_byte_order_mark_and_multi_byte_characters_split_across_blocks_are_fine(monkeypatch):
    monkeypatch.setattr(json_text, "BLOCK_BYTES", 1)
    text = json.dumps([obj(data={"k": "日本語 é 🎉"})], ensure_ascii=False)
    assert read(b"\xef\xbb\xbf" + text.encode()) == [obj(data={"k": "日本語 é 🎉"})]


def test_brackets_inside_strings_do_not_count_against_the_depth_limit():
    (found,) = read(json.dumps([obj(data={"k": "[" * 500 + "{" * 500})]))
    assert found["data"]["k"].startswith("[[[")


def test_a_value_deeper_than_the_limit_is_refused_in_a_list_and_as_a_document():
    deep = "[" * 101 + "]" * 101
    with pytest.raises(DumpError, match="nested deeper than 100 levels"):
        read('{"kind": "List", "items": [{"apiVersion": "v1", "kind": "X", "d": ' + deep + "}]}")
    with pytest.raises(DumpError, match="nested deeper than 100 levels"):
        read('{"apiVersion": "v1", "kind": "X", "d": ' + deep + "}")
    nested_99 = "[" * 98 + "]" * 98  # with the object and its field: 99 levels
    assert read('[{"apiVersion": "v1", "kind": "X", "d": ' + nested_99 + "}]")


def test_an_object_past_the_node_limit_is_refused_even_when_its_text_is_short(monkeypatch):
    monkeypatch.setattr(limits, "MAX_OBJECT_NODES", 5)
    with pytest.raises(DumpError, match="more than 5 values"):
        read(json.dumps([obj(data=[1, 2, 3, 4, 5])]))
    assert read(json.dumps([obj(data=[1])]))


def test_a_value_whose_text_is_past_the_size_limit_is_refused_without_reading_on(monkeypatch):
    monkeypatch.setattr(limits, "MAX_VALUE_CHARS", 1000)
    monkeypatch.setattr(json_text, "BLOCK_BYTES", 100)
    reads: list[int] = []

    class Counting(io.BytesIO):
        def read(self, size: int | None = -1) -> bytes:
            reads.append(size or 0)
            return super().read(size)

    big = json.dumps([obj(data="x" * 5000)] + [obj(n=i) for i in range(10_000)])
    with pytest.raises(DumpError, match="an object of the dump is larger than"):
        list(iter_objects(open_dump(Counting(big.encode()))))
    assert sum(reads) < len(big) / 4  # stopped at the big value, not read to the end


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '[{"apiVersion": "v1",\n  "kind": "X", "a": tru}]',
            r"invalid JSON at line 2, column 21: Expecting value",
        ),
        ('[{"apiVersion": "v1", "kind": "X"}\n\n x]', r"invalid JSON at line 3, column 2"),
        ('{"items": [], "kind": "List" "x": 1}', "invalid JSON at line 1, column 30"),
        ('{"kind": "List", 5: 1}', "expected a property name in double quotes"),
        ('[{"apiVersion": "v1", "kind": "X", "n": NaN}]', "unsupported value NaN"),
        ('[{"apiVersion": "v1", "kind": "X", "n": -Infinity}]', "unsupported value -Infinity"),
        ('[{"apiVersion": "v1", "kind": "X", "n": 1e999}]', "unsupported value 1e999"),
        ('[{"apiVersion": "v1", "kind": "X", "n": "\\ud800"}]', r"cannot store, at n"),
        ('[{"apiVersion": "v1", "kind": "X"}', "ends in the middle of a list"),
        ('[{"apiVersion": "v1", "kind": "X", "s": "unclosed', "ends in the middle of an object"),
        ('{"kind": "List", "items": [', "ends in the middle of an object"),
        ("[1]", "expected Kubernetes objects, found int"),
        ('"text"', "expected Kubernetes objects, found str"),
    ],
)
def test_broken_json_is_refused_with_the_place_and_the_reason(text, message):
    with pytest.raises(DumpError, match=message):
        read(text)


def test_an_error_deep_in_a_long_dump_names_its_line_after_many_blocks(monkeypatch):
    monkeypatch.setattr(json_text, "BLOCK_BYTES", 64)
    lines = [json.dumps(obj(n=i)) for i in range(200)]
    lines[150] = lines[150].replace('"n"', "n")
    with pytest.raises(DumpError, match="line 151, column 43"):
        read("\n".join(lines))


def test_null_documents_and_non_ascii_text_json_can_store_are_kept():
    assert read('{"apiVersion": "v1", "kind": "X", "é": "\\u00e9"} null') == [
        {"apiVersion": "v1", "kind": "X", "é": "é"}
    ]
