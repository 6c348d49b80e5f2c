"""The streaming dump reader: formats, gzip, Lists, cleaning, limits and refusals."""

from __future__ import annotations

import gzip
import io
import json

import pytest
import yaml

from policyeditor.engine.impact import DumpError, iter_objects, iter_weighed, limits, open_dump
from policyeditor.engine.manifests.loading import load_documents
from tests.engine.impact.helpers import deployment, kubectl_json

CONFIG_MAP = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: n}\n"


def read(data: str | bytes, **options: int) -> list[dict]:
    raw = data.encode() if isinstance(data, str) else data
    return list(iter_objects(open_dump(io.BytesIO(raw), **options)))


def kubectl_yaml(items: list[dict]) -> str:
    """What `kubectl get ... -o yaml` prints: items before kind."""
    return yaml.safe_dump({"apiVersion": "v1", "items": items, "kind": "List"}, sort_keys=True)


def test_kubectl_yaml_and_json_lists_multi_documents_and_arrays_all_read_without_managed_fields():
    items = [deployment("a", 1), deployment("b", 2, "prod")]
    for data in (
        kubectl_yaml(items),
        kubectl_json(items),
        yaml.safe_dump_all(items),
        json.dumps(items),
        "\n".join(json.dumps(item) for item in items),
        gzip.compress(kubectl_json(items)),
        gzip.compress(kubectl_yaml(items).encode()),
    ):
        objects = read(data)
        assert [o["metadata"]["name"] for o in objects] == ["a", "b"]
        assert "managedFields" not in objects[0]["metadata"]
        assert objects[1]["metadata"]["namespace"] == "prod"


def test_yaml_scalars_resolve_as_kubernetes_reads_them_and_timestamps_stay_strings():
    text = CONFIG_MAP + "data: {a: '1', b: 2, c: true, d: null, e: 2024-01-01T00:00:00Z, f: 1.5}\n"
    (obj,) = read(text)
    assert obj["data"] == {
        "a": "1",
        "b": 2,
        "c": True,
        "d": None,
        "e": "2024-01-01T00:00:00Z",
        "f": 1.5,
    }


# Plain scalars on which YAML 1.1 (PyYAML's rules) and go-yaml v2 (kubectl's) disagree.
DISPUTED_SCALARS = ["12:30", "1:20:00", "y", "n", "Y", "1e3", "0o17", "08", "0x1F", "1_000", "+1"]
# As mapping keys they become text ("1e3" is "1000"): one of each meaning, so no key repeats.
DISPUTED_KEYS = ["12:30", "y", "n", "1e3", "0o17", "08", "0x1F", "1.5"]


def test_plain_scalars_resolve_as_kubectl_reads_them_not_as_yaml_1_1_does():
    # kubectl prints a ConfigMap's "12:30" unquoted (to go-yaml it is a string), "y" quoted.
    (obj,) = read(CONFIG_MAP + "data: {time: 12:30, flag: y, sci: 1e3, oct: 0o17, eight: 08}\n")
    assert obj["data"] == {"time": "12:30", "flag": True, "sci": 1000.0, "oct": 15, "eight": 8.0}


def test_the_dump_reader_and_the_manifest_loader_read_every_disputed_scalar_alike():
    values = "".join(f"  k{index}: {text}\n" for index, text in enumerate(DISPUTED_SCALARS))
    keys = "".join(f"  {text}: key\n" for text in DISPUTED_KEYS)
    text = CONFIG_MAP + "data:\n" + values + "keys:\n" + keys
    (obj,) = read(text)
    assert obj == load_documents(text)[0]


def test_mixed_kinds_nested_lists_and_empty_documents_are_fine():
    text = (
        "---\n"
        + CONFIG_MAP
        + "---\n---\n"
        + kubectl_yaml(
            [
                {
                    "apiVersion": "v1",
                    "kind": "PodList",
                    "items": [{"apiVersion": "v1", "kind": "Pod"}],
                }
            ]
        )
    )
    assert [o["kind"] for o in read(text)] == ["ConfigMap", "Pod"]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("a: &x [1]\nb: *x\n", "aliases"),
        ("- 1\n- 2\n", "expected Kubernetes objects, found int"),
        ("metadata: {name: x}\n", "no apiVersion and kind"),
        ("a: [unclosed\n", "invalid YAML at line 2, column 1: did not find expected ',' or ']'"),
        (b"kind: \xff\xfe\n", "not UTF-8"),
        (CONFIG_MAP + "n: .inf\n", r"unsupported value '.inf': not a finite number \(line 4\)"),
        ('{"apiVersion": "v1", "kind": "ConfigMap", "n": 1e400}', "unsupported value|overflow"),
        (CONFIG_MAP + "b: !!binary aGk=\n", r"unsupported tag tag:yaml.org,2002:binary \(line 4\)"),
        (
            '{"apiVersion": "v1", "items": [{"apiVersion": "v1", "kind": "Pod"}, {"apiVer',
            "invalid JSON|truncated",
        ),
        (
            '{"apiVersion": "v1", "items": [{"apiVersion": "v1", "kind": "Pod"}], "kind": "Pod"}',
            "not a List",
        ),
        ("? [1]\n: x\n", "mapping key must be a string"),
        (gzip.compress(b"kind: List\nitems: []\n", mtime=0)[:-12], "gzip|truncated|read"),
        ("just some prose, not Kubernetes\n", "expected Kubernetes objects, found str"),
    ],
)
def test_bad_dumps_are_refused_with_a_reason(data, message):
    with pytest.raises(DumpError, match=message):
        read(data)


def test_an_alias_bomb_is_refused_at_its_first_alias():
    bomb = "a: &a [x, x]\n" + "".join(
        f"{c}: &{c} [*{p}, *{p}]\n" for p, c in zip("abcdefgh", "bcdefghi", strict=True)
    )
    with pytest.raises(DumpError, match="aliases"):
        read(bomb)


def test_the_size_limit_counts_decompressed_bytes_so_a_gzip_bomb_stops_early():
    bomb = gzip.compress(
        b"apiVersion: v1\nkind: ConfigMap\ndata: {a: '" + b"x" * 5_000_000 + b"'}\n"
    )
    assert len(bomb) < 100_000
    with pytest.raises(DumpError, match="larger than 1 MiB"):
        read(bomb, limit=1024 * 1024)


def test_objects_past_the_node_and_count_limits_are_refused(monkeypatch):
    monkeypatch.setattr(limits, "MAX_OBJECT_NODES", 10)
    with pytest.raises(DumpError, match="more than 10 values"):
        read(CONFIG_MAP + "data: {" + ", ".join(f"k{i}: v" for i in range(20)) + "}\n")
    monkeypatch.undo()
    monkeypatch.setattr(limits, "MAX_OBJECTS", 2)
    with pytest.raises(DumpError, match="more than 2 objects"):
        read(kubectl_json([deployment(f"d{i}", 1) for i in range(3)]))


def test_objects_stream_out_before_the_end_of_a_list_is_read():
    # The first object comes out although the List is cut short after it.
    data = kubectl_json([deployment("a", 1), deployment("b", 2)])[:-200]
    objects = iter_objects(open_dump(io.BytesIO(data)))
    assert next(objects)["metadata"]["name"] == "a"
    with pytest.raises(DumpError):
        list(objects)


def test_a_value_json_cannot_store_deep_in_a_list_item_is_refused():
    with pytest.raises(DumpError, match=r"cannot store, at n\[1\]: .* unpaired UTF-16 surrogate"):
        read(
            '{"kind": "List", "items": [{"apiVersion": "v1", "kind": "Pod", "n": [1, "\\ud800"]}]}'
        )


def test_non_ascii_text_that_json_can_store_is_kept():
    (obj,) = read('{"apiVersion": "v1", "kind": "ConfigMap", "data": {"é": "日本"}}')
    assert obj["data"] == {"é": "日本"}


def test_an_object_nested_past_the_depth_limit_is_refused():
    deep = "[" * 150 + "]" * 150
    with pytest.raises(DumpError, match="nested deeper than 100 levels"):
        read('{"apiVersion": "v1", "kind": "ConfigMap", "data": ' + deep + "}")


def test_managed_fields_are_skipped_unbuilt_so_their_size_does_not_count_against_the_limits(
    monkeypatch,
):
    monkeypatch.setattr(limits, "MAX_OBJECT_NODES", 20)
    heavy = deployment("a", 1)
    heavy["metadata"]["managedFields"] = [{"fieldsV1": {f"f:{i}": {}}} for i in range(50)]
    first, second = read(kubectl_json([heavy, deployment("b", 2)]))
    assert first["metadata"] == {"name": "a", "namespace": "default"}
    assert second["metadata"]["name"] == "b"
    truncated = kubectl_json([heavy]).split(b'"f:10"')[0]
    with pytest.raises(DumpError, match="truncated|premature EOF"):
        read(truncated)


def test_each_object_weighs_about_the_text_it_was_read_from_in_json_and_in_yaml():
    small, big = deployment("a", 1), deployment("b", 2)
    big["data"] = {f"key{i}": "v" * 50 for i in range(200)}
    for data in (kubectl_json([small, big]), kubectl_yaml([small, big])):
        raw = data.encode() if isinstance(data, str) else data
        (_, light), (_, heavy) = iter_weighed(open_dump(io.BytesIO(raw)))
        assert 50 < light < 1_000
        assert heavy > 10_000 > 20 * light
    text = json.dumps(small)
    ((_, weight),) = iter_weighed(open_dump(io.BytesIO(f"[{text}]".encode())))
    assert weight == len(text)
