"""Lossless YAML: sources kept as written, edits changing only what they change."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from policyeditor.engine.jsontypes import same_json
from policyeditor.engine.manifests.loading import load_documents
from policyeditor.engine.manifests.roundtrip import (
    MAX_PATCH_CHARS,
    roundtrip_dump,
    source_for,
    update_source,
)
from policyeditor.engine.manifests.textpatch import patch_text
from policyeditor.engine.manifests.yaml_scalars import Unsupported
from tests.sources import changed_lines
from tests.vectors import DATA, SHARED

EXTERNAL = SHARED / "external" if (SHARED / "external").is_dir() else DATA / "external"

SOURCE = """\
# The replica limit, as kept in Git.
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: "replica-limit"   # quoted on purpose
  labels: {team: platform, tier: "1"}
spec:
  failurePolicy: Fail

  matchConstraints:
    resourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: [CREATE, UPDATE]
      resources: ["deployments"]
  validations:
    - expression: >-
        object.spec.replicas <=
        5
      message: 'Too many replicas'
    - expression: |
        has(object.spec.template)
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: replica-limit-binding}
spec:
  policyName: replica-limit
  validationActions: [Deny]
"""


def edited(source: str, change) -> tuple[list[dict], str]:
    docs = copy.deepcopy(load_documents(source))
    change(docs)
    return docs, update_source(source, docs)


def test_a_source_that_loads_to_its_documents_is_kept_byte_for_byte():
    docs = load_documents(SOURCE)
    assert source_for(SOURCE, docs) == SOURCE
    assert update_source(SOURCE, copy.deepcopy(docs)) == SOURCE


def test_json_text_or_text_that_reads_otherwise_is_not_kept():
    docs = load_documents(SOURCE)
    assert source_for('{"apiVersion": "v1", "kind": "ConfigMap"}', docs).startswith("apiVersion:")
    assert source_for("kind: Other\n", docs) != "kind: Other\n"


def test_a_changed_plain_scalar_changes_only_its_line_and_keeps_the_comment():
    docs, text = edited(SOURCE, lambda d: d[0]["spec"].update(failurePolicy="Ignore"))
    assert changed_lines(SOURCE, text) == ["-  failurePolicy: Fail", "+  failurePolicy: Ignore"]
    assert same_json(load_documents(text), docs)


def test_a_quoted_scalar_stays_quoted_in_its_own_quotes():
    _, text = edited(SOURCE, lambda d: d[0]["metadata"].update(name="replica-cap"))
    assert changed_lines(SOURCE, text) == [
        '-  name: "replica-limit"   # quoted on purpose',
        '+  name: "replica-cap"   # quoted on purpose',
    ]
    _, text = edited(SOURCE, lambda d: d[0]["spec"]["validations"][0].update(message="It's many"))
    assert "+      message: 'It''s many'" in changed_lines(SOURCE, text)


def test_a_plain_value_that_would_read_as_another_type_is_quoted():
    _, text = edited(SOURCE, lambda d: d[0]["spec"].update(failurePolicy="true"))
    assert changed_lines(SOURCE, text)[1] == '+  failurePolicy: "true"'


def test_a_folded_block_scalar_keeps_its_folds_when_one_word_changes():
    def change(docs):
        docs[0]["spec"]["validations"][0]["expression"] = "object.spec.replicas <= 7"

    docs, text = edited(SOURCE, change)
    assert changed_lines(SOURCE, text) == ["-        5", "+        7"]
    assert same_json(load_documents(text), docs)


def test_a_literal_block_scalar_stays_a_literal_block():
    def change(docs):
        docs[0]["spec"]["validations"][1]["expression"] = "has(object.spec.selector)\n"

    _, text = edited(SOURCE, change)
    assert changed_lines(SOURCE, text) == [
        "-        has(object.spec.template)",
        "+        has(object.spec.selector)",
    ]


def test_flow_collections_keep_their_flow_style():
    _, text = edited(SOURCE, lambda d: d[0]["metadata"]["labels"].update(tier="2"))
    assert changed_lines(SOURCE, text)[1] == '+  labels: {team: platform, tier: "2"}'
    _, text = edited(SOURCE, lambda d: d[1]["spec"].update(validationActions=["Deny", "Audit"]))
    assert changed_lines(SOURCE, text)[1] == '+  validationActions: ["Deny", "Audit"]'


def test_an_added_key_is_appended_after_its_siblings():
    def change(docs):
        docs[0]["spec"]["validations"][0]["reason"] = "Forbidden"

    docs, text = edited(SOURCE, change)
    assert changed_lines(SOURCE, text) == ["+      reason: Forbidden"]
    assert same_json(load_documents(text), docs)


def test_a_removed_key_takes_its_lines_and_nothing_else():
    docs, text = edited(SOURCE, lambda d: d[0]["spec"].pop("matchConstraints"))
    removed = changed_lines(SOURCE, text)
    assert all(line.startswith("-") for line in removed) and len(removed) == 6
    assert same_json(load_documents(text), docs)
    assert "# The replica limit, as kept in Git." in text


def test_list_items_are_updated_appended_and_removed_element_wise():
    def append(docs):
        docs[0]["spec"]["validations"].append({"expression": "true", "message": "ok"})

    docs, text = edited(SOURCE, append)
    assert changed_lines(SOURCE, text) == ['+    - expression: "true"', "+      message: ok"]
    assert same_json(load_documents(text), docs)
    docs, text = edited(SOURCE, lambda d: d[0]["spec"]["validations"].pop())
    assert changed_lines(SOURCE, text) == [
        "-    - expression: |",
        "-        has(object.spec.template)",
    ]


def test_documents_are_appended_and_removed_whole():
    param = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "limits"}}
    docs, text = edited(SOURCE, lambda d: d.append(param))
    assert text.startswith(SOURCE) and same_json(load_documents(text), docs)
    docs, text = edited(SOURCE, lambda d: d.pop(0))
    assert same_json(load_documents(text), docs)
    assert text.endswith("  validationActions: [Deny]\n")


def test_a_change_text_edits_cannot_make_goes_through_ruamel_round_trip():
    source = (
        "apiVersion: v1\nkind: ConfigMap   # the params\nmetadata:\n  name: p\n"
        'data: {maxReplicas: "5",\n  minReplicas: "1"}\n'
    )
    old = load_documents(source)
    docs = copy.deepcopy(old)
    docs[0]["data"]["tier"] = "gold"
    with pytest.raises(Unsupported):
        patch_text(source, old, docs)  # a key added to a flow mapping written over two lines
    text = roundtrip_dump(source, old, docs)
    assert "# the params" in text and same_json(load_documents(text), docs)
    assert update_source(source, docs) == text


def test_an_empty_or_unreadable_source_falls_back_to_a_kubectl_ready_dump():
    docs = load_documents(SOURCE)
    assert update_source("", docs).startswith("apiVersion: admissionregistration.k8s.io/v1\n")
    assert same_json(load_documents(update_source("a: [", docs)), docs)


def test_a_source_too_large_to_patch_quickly_is_kept_until_changed_then_dumped():
    padding = "# " + "x" * 78 + "\n"
    source = padding * (MAX_PATCH_CHARS // len(padding) + 1) + SOURCE
    docs = load_documents(source)
    assert update_source(source, copy.deepcopy(docs)) == source
    docs[0]["spec"]["failurePolicy"] = "Ignore"
    text = update_source(source, docs)
    assert not text.startswith("#") and same_json(load_documents(text), docs)


def corpus() -> list[Path]:
    files = sorted((DATA / "docs_examples").glob("*.yaml"))
    return files + sorted(p for p in EXTERNAL.rglob("*") if p.suffix in (".yaml", ".yml"))


def _example_manifests(path: Path) -> str:
    """The Kubernetes objects of a docs example (its `documents:` list) as the YAML they are."""
    text = path.read_text(encoding="utf-8")
    root = yaml.compose(text)
    items = next(v for k, v in root.value if k.value == "documents").value
    lines = text.splitlines(keepends=True)
    ends = [item.start_mark.line for item in items[1:]] + [_entry_end(root, "documents")]
    parts = []
    for item, end in zip(items, ends, strict=True):
        chunk = lines[item.start_mark.line : end]
        chunk[0] = "  " + chunk[0][chunk[0].index("-") + 1 :].lstrip(" ")
        parts.append("".join(line[2:] if line.startswith("  ") else line for line in chunk))
    return "---\n".join(parts)


def _entry_end(root, key: str) -> int:
    """The line after a top-level entry (where the next top-level key starts)."""
    keys = [k for k, _ in root.value]
    index = [k.value for k in keys].index(key)
    return keys[index + 1].start_mark.line if index + 1 < len(keys) else root.end_mark.line + 1


def kubernetes_manifests(path: Path) -> tuple[str, list[dict]] | None:
    """The text and documents of a Kubernetes manifest file a draft can hold, else None."""
    try:
        text = _example_manifests(path) if path.parent.name == "docs_examples" else None
        text = text if text is not None else path.read_text(encoding="utf-8")
        docs = load_documents(text, source=str(path))
    except Exception:
        return None
    if not docs or not all("apiVersion" in d and "kind" in d for d in docs):
        return None
    return text, docs


def _first_string(value, path=()):
    """The path of the first string leaf outside aliases' reach (depth-first)."""
    if isinstance(value, dict):
        for key, item in value.items():
            found = _first_string(item, (*path, key))
            if found:
                return found
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found = _first_string(item, (*path, index))
            if found:
                return found
    elif isinstance(value, str) and "\n" not in value and path[:1] != ("kind",):
        return path
    return None


@pytest.mark.parametrize("path", corpus(), ids=lambda p: p.name)
def test_every_example_manifest_round_trips_byte_identical_and_a_one_field_edit_is_one_line(
    path: Path,
):
    found = kubernetes_manifests(path)
    if found is None:
        pytest.skip("not Kubernetes manifests a draft holds")
    text, docs = found
    assert source_for(text, docs) == text
    assert update_source(text, copy.deepcopy(docs)) == text
    new = copy.deepcopy(docs)
    target = new[-1]
    field = _first_string(target.get("spec", target)) if "spec" in target else None
    holder = target["spec"] if field else target["metadata"]
    field = field or ("name",)
    for key in field[:-1]:
        holder = holder[key]
    holder[field[-1]] = holder[field[-1]] + "-edited"
    out = update_source(text, new)
    assert same_json(load_documents(out), new)
    assert len(changed_lines(text, out)) == 2, changed_lines(text, out)
