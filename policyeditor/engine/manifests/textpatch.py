"""Minimal text edits of YAML source: new values spliced in at their nodes, the rest kept byte for byte.

Given the source, the documents it loads to and the documents wanted, each document's changes are
made by node_edits, removed documents are cut out and trailing documents are appended. What cannot
be done that way (a change of type, a multi-line flow collection, aliases and merge keys, documents
reordered) raises Unsupported; the caller then re-dumps more broadly.
"""

from __future__ import annotations

import difflib
import re
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from policyeditor.engine.jsontypes import same_json
from policyeditor.engine.manifests.dump import dump_documents
from policyeditor.engine.manifests.node_edits import Edit, NodePatcher
from policyeditor.engine.manifests.yaml_scalars import Unsupported

_NULLS = ("", "~", "null", "Null", "NULL")
_DOC_MARK = re.compile(r"^---(?=[ \t\r\n]|$)", re.MULTILINE)


def _roots(source: str) -> list[Node]:
    """The documents' root nodes, composed by PyYAML's pure-Python parser (exact text indexes)."""
    try:
        nodes = list(yaml.compose_all(source, Loader=yaml.SafeLoader))
    except yaml.YAMLError as error:
        raise Unsupported(f"the source does not compose: {error}") from None
    return [node for node in nodes if node is not None]


def _units(roots: list[Node]) -> list[tuple[Node, Node | None]]:
    """(node of one loaded document, its List container or None), in load_documents' order."""
    units: list[tuple[Node, Node | None]] = []
    for root in roots:
        if isinstance(root, ScalarNode) and root.style is None and root.value in _NULLS:
            continue
        if isinstance(root, MappingNode):
            fields = {k.value: v for k, v in root.value if isinstance(k, ScalarNode)}
            kind, items = fields.get("kind"), fields.get("items")
            if (
                isinstance(kind, ScalarNode)
                and kind.value.endswith("List")
                and isinstance(items, SequenceNode)
            ):
                units.extend((item, root) for item in items.value)
                continue
        units.append((root, None))
    return units


def _identity(doc: Any) -> tuple[str, ...]:
    if not isinstance(doc, dict):
        return ("",)
    meta = doc.get("metadata")
    meta = meta if isinstance(meta, dict) else {}
    return tuple(str(x) for x in (doc.get("kind"), meta.get("name"), meta.get("namespace")))


def _chunk_starts(source: str) -> list[int]:
    return [0] + [m.start() for m in _DOC_MARK.finditer(source) if m.start() > 0]


def _document_span(source: str, root: Node, starts: list[int]) -> tuple[int, int]:
    index = root.start_mark.index
    begin = max(s for s in starts if s <= index)
    later = [s for s in starts if s > index]
    return begin, later[0] if later else len(source)


def patch_text(source: str, old_docs: list[dict[str, Any]], new_docs: list[dict[str, Any]]) -> str:
    """`source` edited so that it loads to `new_docs`; Unsupported when text edits cannot do it."""
    units = _units(_roots(source))
    if len(units) != len(old_docs):
        raise Unsupported("the documents do not line up with the source")
    patcher = NodePatcher(source)
    matcher = difflib.SequenceMatcher(
        None, [_identity(d) for d in old_docs], [_identity(d) for d in new_docs], autojunk=False
    )
    starts = _chunk_starts(source)
    appended: list[dict[str, Any]] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal" or (tag == "replace" and i2 - i1 == j2 - j1):
            for offset in range(i2 - i1):
                node, container = units[i1 + offset]
                old, new = old_docs[i1 + offset], new_docs[j1 + offset]
                if container is not None:
                    old, new = _list_item_view(node, old, new)
                patcher.patch(node, old, new)
        elif tag == "insert" and i1 == len(old_docs):
            appended.extend(new_docs[j1:j2])
        elif tag == "delete":
            for node, container in units[i1:i2]:
                if container is not None:
                    raise Unsupported("an item removed from a List")
                patcher.edits.append((*_document_span(source, node, starts), ""))
        else:
            raise Unsupported("documents reordered or inserted in the middle")
    text = _apply(source, patcher.edits)
    if appended:
        if text and not text.endswith("\n"):
            text += "\n"
        text += "".join("---\n" + dump_documents([doc]) for doc in appended)
    return text


def _list_item_view(
    node: Node, old: dict[str, Any], new: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A typed List's item without the apiVersion/kind that loading filled in from the List."""
    written = (
        {k.value for k, _ in node.value if isinstance(k, ScalarNode)}
        if isinstance(node, MappingNode)
        else set()
    )
    old, new = dict(old), dict(new)
    for field in ("apiVersion", "kind"):
        if field not in written and field in old:
            if field not in new or not same_json(new[field], old[field]):
                raise Unsupported("a List item's inherited field changed")
            del old[field], new[field]
    return old, new


def _apply(source: str, edits: list[Edit]) -> str:
    ordered = sorted(edits, key=lambda e: (e[0], e[1]))
    for (_, e1, _), (s2, _, _) in zip(ordered, ordered[1:], strict=False):
        if s2 < e1:
            raise Unsupported("overlapping edits")
    parts = []
    position = 0
    for start, end, text in ordered:
        parts.append(source[position:start])
        parts.append(text)
        position = end
    parts.append(source[position:])
    return "".join(parts)
