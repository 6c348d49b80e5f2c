"""Loading and dumping manifests: limits, error locations, Kubernetes field order, round trips."""

from __future__ import annotations

import time
import tracemalloc

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from policyeditor.engine.errors import InputError
from policyeditor.engine.manifests.loading import (
    MAX_BYTES,
    MAX_DEPTH,
    MAX_DOCUMENTS,
    MAX_NODES,
    ManifestError,
    load_documents,
    load_file,
)

BILLION_LAUGHS = """\
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
"""

POLICY = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: demo
spec:
  validations:
  - expression: object.spec.replicas <= 5
"""


def test_yaml_multi_document_skips_empty_documents():
    docs = load_documents("a: 1\n---\n---\n# only a comment\n---\nb: 2\n")
    assert docs == [{"a": 1}, {"b": 2}]


def test_json_object_and_concatenated_json_stream_load():
    assert load_documents('{"kind": "A", "n": 1.5}') == [{"kind": "A", "n": 1.5}]
    assert load_documents('{"a":1}\n{"b":[true,null]}') == [{"a": 1}, {"b": [True, None]}]


def test_json_surrogate_pair_escapes_decode_to_one_character():
    assert load_documents('{"a": "\\ud83d\\ude00"}') == [{"a": "\U0001f600"}]


def test_flow_yaml_that_is_not_json_still_loads():
    assert load_documents("{a: 1, b: [x, z]}") == [{"a": 1, "b": ["x", "z"]}]


def test_bytes_with_utf8_bom_load():
    assert load_documents("\ufeffkind: A\n".encode()) == [{"kind": "A"}]


def test_timestamps_stay_strings_as_in_kubernetes():
    assert load_documents("d: 2024-01-01\nt: 2001-12-14t21:59:43.10-05:00\n") == [
        {"d": "2024-01-01", "t": "2001-12-14t21:59:43.10-05:00"}
    ]


def test_yaml_11_scalars_resolve_like_go_yaml():
    assert load_documents("a: yes\nb: 0x1f\nc: 1.5\nd: ~\ne: '1'\n") == [
        {"a": True, "b": 31, "c": 1.5, "d": None, "e": "1"}
    ]


def test_plain_scalars_resolve_as_go_yaml_resolves_them():
    text = (
        "a: [y, N, 1e3, 0o17, 1:20, 08, 0755, +.5, 1_000, -0b101, 18446744073709551615, 1., -, 0x]"
    )
    assert load_documents(text) == [
        {"a": [True, False, 1000.0, 15, "1:20", 8.0, 493, 0.5, 1000, -5, 2**64 - 1, 1.0, "-", "0x"]}
    ]
    assert load_documents("a: 'y'\nb: !!int '12'\nc: !!float '2'\nd: !!bool 'off'\n") == [
        {"a": "y", "b": 12, "c": 2.0, "d": False}
    ]
    with pytest.raises(ManifestError, match="invalid int value 'x'"):
        load_documents("a: !!int x\n")


def test_non_string_keys_become_strings():
    assert load_documents("1: a\ntrue: b\n~: c\n1e3: d\n") == [
        {"1": "a", "true": "b", "null": "c", "1000": "d"}
    ]


def test_merge_keys_merge_with_explicit_keys_winning():
    text = "base: &base {a: 1, b: 2}\nx:\n  <<: *base\n  b: 3\n"
    assert load_documents(text)[0]["x"] == {"a": 1, "b": 3}


def test_aliases_are_copied_not_shared():
    doc = load_documents("a: &x {k: [1]}\nb: *x\n")[0]
    doc["a"]["k"].append(2)
    assert doc["b"] == {"k": [1]}


def test_list_kind_is_flattened_into_its_items():
    text = "apiVersion: v1\nkind: List\nitems:\n- kind: A\n- kind: B\n"
    assert load_documents(text) == [{"kind": "A"}, {"kind": "B"}]


def test_typed_list_items_get_api_version_and_kind_from_the_list():
    text = (
        "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyList\n"
        "items:\n- metadata: {name: p}\n"
    )
    assert load_documents(text) == [
        {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicy",
            "metadata": {"name": "p"},
        }
    ]


def test_list_items_that_are_not_objects_are_refused():
    with pytest.raises(ManifestError, match=r"document 1: items\[1\]: expected an object"):
        load_documents("kind: List\nitems: [{a: 1}, 3]\n")


def test_non_object_document_is_refused_with_its_number():
    with pytest.raises(ManifestError) as error:
        load_documents("a: 1\n---\n- x\n", source="bundle.yaml")
    assert str(error.value) == "bundle.yaml: document 2: expected an object (a mapping), got a list"
    assert error.value.document == 2


def test_syntax_error_names_file_document_line_and_column():
    with pytest.raises(ManifestError) as error:
        load_documents("a: 1\n---\nb: 2\nc: d: e\n", source="p.yaml")
    assert str(error.value).startswith("p.yaml: document 2: line 4, column 5: mapping values")
    assert (error.value.line, error.value.column) == (4, 5)


def test_json_syntax_error_names_line_and_column():
    with pytest.raises(
        ManifestError,
        match=r"f.json: document 1: line 2, column 7: did not find expected node content",
    ):
        load_documents('{"a": 1,\n "b": ]}', source="f.json")


def test_duplicate_keys_are_refused_in_yaml_and_json():
    with pytest.raises(ManifestError, match='line 2, column 1: key "a" already set in map'):
        load_documents("a: 1\na: 2\n")
    with pytest.raises(ManifestError, match='line 1, column 10: key "a" already set in map'):
        load_documents('{"a": 1, "a": 2}')


def test_billion_laughs_is_refused_fast_with_bounded_memory():
    tracemalloc.start()
    started = time.perf_counter()
    with pytest.raises(ManifestError, match="alias expansion too large") as error:
        load_documents(BILLION_LAUGHS, source="bomb.yaml")
    elapsed = time.perf_counter() - started
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert elapsed < 0.5
    assert peak < 20 * 1024 * 1024
    assert error.value.source == "bomb.yaml" and error.value.line is not None


def test_alias_of_a_large_scalar_repeated_is_refused():
    big = "x" * 100_000
    text = f"a: &a {big}\nb: [" + ", ".join(["*a"] * 40) + "]\n"
    with pytest.raises(ManifestError, match="alias expansion too large"):
        load_documents(text)


def test_recursive_alias_is_refused():
    with pytest.raises(ManifestError, match=r"line 1, column 8: recursive alias \*a"):
        load_documents("a: &a [*a]\n")


def test_undefined_alias_is_an_error():
    with pytest.raises(ManifestError, match="undefined alias"):
        load_documents("a: *nowhere\n")


def test_moderate_alias_use_is_allowed():
    docs = load_documents("x: &x {a: 1}\nz: [*x, *x, *x]\n")
    assert docs[0]["z"] == [{"a": 1}] * 3


@pytest.mark.parametrize("opener", ["- ", "["])
def test_deep_yaml_nesting_is_refused(opener):
    text = opener * (MAX_DEPTH + 5) + "x" + ("]" * (MAX_DEPTH + 5) if opener == "[" else "")
    with pytest.raises(ManifestError, match=f"nesting deeper than {MAX_DEPTH} levels"):
        load_documents(text)


def test_deep_json_nesting_is_refused_even_past_the_recursion_limit():
    for depth in (MAX_DEPTH + 1, 100_000):
        with pytest.raises(ManifestError, match="nesting deeper|Expecting"):
            load_documents('{"a":' * depth + "1" + "}" * depth)


def test_nesting_at_the_limit_loads():
    inner = "[" * (MAX_DEPTH - 2) + "1" + "]" * (MAX_DEPTH - 2)
    value = load_documents(f"a: [{inner}]")[0]["a"]  # the document mapping is the 1st level
    for _ in range(MAX_DEPTH - 1):
        value = value[0]
    assert value == 1


def test_alias_that_would_nest_too_deep_is_refused():
    inner = "[" * 60 + "1" + "]" * 60
    with pytest.raises(ManifestError, match="nesting deeper"):
        load_documents(f"a: &a {inner}\nb: " + "[" * 50 + "*a" + "]" * 50 + "\n")


def test_ten_megabyte_input_is_refused_without_parsing():
    data = b"a: " + b"x" * (10 * 1024 * 1024)
    started = time.perf_counter()
    with pytest.raises(ManifestError, match=f"input too large: {len(data)} bytes"):
        load_documents(data)
    assert time.perf_counter() - started < 0.5
    with pytest.raises(ManifestError, match="input too large"):
        load_documents(data.decode())


def test_input_just_under_the_limit_loads():
    text = "a: " + "x" * (MAX_BYTES - 10) + "\n"
    assert len(load_documents(text)[0]["a"]) == MAX_BYTES - 10


def test_too_many_documents_are_refused():
    with pytest.raises(ManifestError, match="too many documents"):
        load_documents("a: 1\n---\n" * (MAX_DOCUMENTS + 1))


def test_binary_garbage_is_refused_with_a_clear_error():
    garbage = bytes(range(256)) * 8
    with pytest.raises(ManifestError, match="not valid UTF-8"):
        load_documents(garbage)
    with pytest.raises(ManifestError, match=r"line 2, column 4: unacceptable character #x0007"):
        load_documents(b"a: 1\nb: \x07\n")


def test_bad_utf8_names_the_byte():
    with pytest.raises(ManifestError) as error:
        load_documents(b"a: caf\xc3(\n", source="x.yaml")
    assert str(error.value) == "x.yaml: not valid UTF-8 (byte 6: b'\\xc3')"


def test_unsupported_tags_are_refused():
    for text in ("a: !!binary aGVsbG8=\n", "a: !!python/object:os.system x\n", "a: !!set {x}\n"):
        with pytest.raises(ManifestError, match="unsupported tag"):
            load_documents(text)


def test_infinity_and_nan_are_refused_as_json_cannot_carry_them():
    for text in ("a: .inf\n", "a: .nan\n", "a: -.Inf\n"):
        with pytest.raises(ManifestError, match="not a finite number"):
            load_documents(text)


def test_non_text_input_is_an_input_error():
    with pytest.raises(InputError, match="expected text"):
        load_documents(12)  # type: ignore[arg-type]


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200))
def test_arbitrary_bytes_never_raise_anything_but_input_error(data):
    try:
        docs = load_documents(data)
    except InputError:
        return
    assert all(isinstance(doc, dict) for doc in docs)


def test_load_file_reads_and_names_the_file(tmp_path):
    path = tmp_path / "policy.yaml"
    path.write_text(POLICY)
    assert load_file(path)[0]["metadata"] == {"name": "demo"}
    path.write_text("a: [\n")
    with pytest.raises(ManifestError, match=str(path)):
        load_file(path)


def test_load_file_refuses_missing_and_huge_files(tmp_path):
    with pytest.raises(ManifestError, match="cannot read file"):
        load_file(tmp_path / "missing.yaml")
    huge = tmp_path / "huge.yaml"
    with huge.open("wb") as handle:
        handle.truncate(MAX_BYTES + 1)
    with pytest.raises(ManifestError, match="input too large"):
        load_file(huge)


def test_inputs_with_too_many_nodes_are_refused_quickly():
    text = "a: [" + "1," * (MAX_NODES + 10) + "1]"
    started = time.perf_counter()
    with pytest.raises(ManifestError, match=f"too many nodes \\(more than {MAX_NODES}\\)"):
        load_documents(text)
    assert time.perf_counter() - started < 10


def test_a_large_realistic_manifest_loads():
    items = "".join(f"  key{i}: value-{i}\n" for i in range(5000))
    docs = load_documents(f"apiVersion: v1\nkind: ConfigMap\ndata:\n{items}")
    assert len(docs[0]["data"]) == 5000
