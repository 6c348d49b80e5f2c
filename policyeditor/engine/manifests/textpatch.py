"""Minimal text edits of YAML source: new values spliced in at their nodes, the rest kept byte for byte.

Given the source, the documents it loads to and the documents wanted, the changed scalars are
rewritten in place in their own style (plain, quoted, literal block), added keys and list items
are inserted after their siblings, removed ones are cut out by whole lines and trailing documents
are appended or dropped. What cannot be done that way (a change of type, a multi-line flow
collection, aliases and merge keys) raises Unsupported; the caller then re-dumps more broadly.
"""

from __future__ import annotations

import difflib
import io
import json
import re
from typing import Any

import yaml
from yaml.emitter import Emitter
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from policyeditor.engine.manifests.dump import dump_block, dump_documents
from policyeditor.engine.manifests.goyaml import go_plain_tag

_STR = "tag:yaml.org,2002:str"
_NULLS = ("", "~", "null", "Null", "NULL")
_DOC_MARK = re.compile(r"^---(?=[ \t\r\n]|$)", re.MULTILINE)
_BREAKS = ("\n", "\r", "\x85", "\u2028", "\u2029")

Edit = tuple[int, int, str]


class Unsupported(Exception):
    """This change cannot be made as a text edit; the caller falls back to a structural dump."""


def same(a: Any, b: Any) -> bool:
    """JSON equality that tells 1 from 1.0 and True (Python's == does not)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def _printable(text: str) -> bool:
    """Whether every character may appear raw in a YAML scalar (YAML 1.1 c-printable, no breaks)."""
    for char in text:
        code = ord(char)
        if char in _BREAKS or char == "\ufeff":
            return False
        if not (
            char == "\t"
            or 0x20 <= code <= 0x7E
            or 0xA0 <= code <= 0xD7FF
            or 0xE000 <= code <= 0xFFFD
            or code >= 0x10000
        ):
            return False
    return True


def double_quoted(text: str) -> str:
    """`text` as a YAML double-quoted scalar on one line (non-printables escaped)."""
    body = json.dumps(text, ensure_ascii=False)[1:-1]
    out = []
    for char in body:
        out.append(char if _printable(char) else f"\\u{ord(char):04x}")
    return '"' + "".join(out) + '"'


def _plain_ok(text: str, flow: bool) -> bool:
    """Whether `text` reads back as this same string when written plain."""
    if not text or not _printable(text) or go_plain_tag(text) != _STR:
        return False
    analysis = Emitter(io.StringIO()).analyze_scalar(text)
    return bool(analysis.allow_flow_plain if flow else analysis.allow_block_plain)


def _plain_value(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return json.dumps(value)
    raise Unsupported("not a scalar")


class _Patcher:
    """Collects the edits that turn one YAML stream's documents into new ones."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.edits: list[Edit] = []
        self.seen: set[int] = set()

    # --- positions ----------------------------------------------------------------------------
    def line_start(self, index: int) -> int:
        return self.source.rfind("\n", 0, index) + 1

    def line_end(self, index: int) -> int:
        """Index just past the line break of the line holding `index` (or the end of text)."""
        found = self.source.find("\n", index)
        return len(self.source) if found < 0 else found + 1

    def block_body_end(self, node: ScalarNode) -> int:
        """Just past the last non-blank line of a block scalar (its trailing blank lines excluded)."""
        span = self.source[node.start_mark.index : node.end_mark.index]
        lines = span.splitlines(keepends=True)
        end = node.start_mark.index
        position = end
        for line in lines:
            position += len(line)
            if line.strip():
                end = position
        if not self.source[:end].endswith("\n"):
            end = self.line_end(end)
        return end

    def entry_end(self, node: Node) -> int:
        """Just past the line on which `node` (with everything nested in it) ends."""
        while isinstance(node, MappingNode | SequenceNode) and not node.flow_style and node.value:
            last = node.value[-1]
            node = last[1] if isinstance(node, MappingNode) else last
        if isinstance(node, ScalarNode) and node.style in ("|", ">"):
            return self.block_body_end(node)
        return self.line_end(node.end_mark.index)

    def insertion(self, at: int, lines: list[str]) -> Edit:
        text = "".join(lines)
        if at == len(self.source) and not self.source.endswith("\n"):
            text = "\n" + text
        return (at, at, text)

    # --- the walk -----------------------------------------------------------------------------
    def patch(self, node: Node, old: Any, new: Any, flow: bool = False) -> None:
        if same(old, new):
            return
        if isinstance(node, MappingNode | SequenceNode) and node.flow_style and not flow:
            self.flow(node, old, new)
            return
        if id(node) in self.seen:
            raise Unsupported("an aliased node")
        self.seen.add(id(node))
        if isinstance(node, ScalarNode):
            if isinstance(new, dict | list) or isinstance(old, dict | list):
                raise Unsupported("a change of type")
            self.edits.append(
                (node.start_mark.index, self.scalar_end(node), self.scalar(node, old, new, flow))
            )
        elif isinstance(node, MappingNode):
            if not isinstance(old, dict) or not isinstance(new, dict):
                raise Unsupported("a change of type")
            self.mapping(node, old, new, flow)
        elif isinstance(node, SequenceNode):
            if not isinstance(old, list) or not isinstance(new, list):
                raise Unsupported("a change of type")
            self.sequence(node, old, new, flow)
        else:
            raise Unsupported("an unknown node")

    def scalar_end(self, node: ScalarNode) -> int:
        if node.style in ("|", ">"):
            return self.block_body_end(node)
        return int(node.end_mark.index)

    def scalar(self, node: ScalarNode, old: Any, new: Any, flow: bool) -> str:
        style = node.style
        if not isinstance(new, str):
            return _plain_value(new)
        span = self.source[node.start_mark.index : node.end_mark.index]
        if style in (None, "'", '"') and "\n" in span and isinstance(old, str):
            if style is None and not _plain_ok(new, flow):
                raise Unsupported("a folded plain scalar that cannot stay plain")
            return refold(span, style or "", old, new)
        if style == "|":
            return self.literal(node, new)
        if style == ">" and isinstance(old, str):
            return self.folded(node, old, new)
        if any(char in new for char in _BREAKS):
            raise Unsupported("a multi-line scalar")
        if style == "'" and _printable(new):
            return "'" + new.replace("'", "''") + "'"
        if style is None and _plain_ok(new, flow):
            return new
        return double_quoted(new)

    def literal(self, node: ScalarNode, new: str) -> str:
        """`new` as a literal block scalar with the old one's indentation and header comment."""
        if "\n" not in new or new.endswith("\n\n") or new[:1] in (" ", "\t"):
            raise Unsupported("a block scalar that needs another header")
        if any(char in new for char in _BREAKS[1:]) or not _printable(new.replace("\n", "")):
            raise Unsupported("a block scalar with special characters")
        start = node.start_mark.index
        header = self.source[start : self.line_end(start)]
        indicator = re.match(r"[|>][-+0-9]*", header)
        tail = header[indicator.end() if indicator else 1 :]
        body = self.source[start + len(header) : self.block_body_end(node)]
        first = next((line for line in body.splitlines() if line.strip()), "")
        indent = " " * (len(first) - len(first.lstrip(" ")) or 2)
        chomp = "" if new.endswith("\n") else "-"
        if not tail.endswith("\n"):
            tail += "\n"
        lines = [indent + line if line else "" for line in new.removesuffix("\n").split("\n")]
        return "|" + chomp + tail + "\n".join(lines) + "\n"

    def folded(self, node: ScalarNode, old: str, new: str) -> str:
        """A `>` block scalar of equally indented lines, edited where its value changed."""
        start = node.start_mark.index
        header_end = self.line_end(start)
        header = self.source[start:header_end]
        body = self.source[header_end : self.block_body_end(node)]
        lines = body.removesuffix("\n").split("\n")
        indent = len(lines[0]) - len(lines[0].lstrip(" "))
        if not indent or any(
            not line.strip() or len(line) - len(line.lstrip(" ")) != indent for line in lines
        ):
            raise Unsupported("a folded block scalar with blank or more-indented lines")
        trail = "\n" if old.endswith("\n") else ""
        if (
            not new.endswith(trail)
            or (trail and new.endswith("\n\n"))
            or (not trail and new.endswith("\n"))
        ):
            raise Unsupported("a folded block scalar whose final line break changes")
        core_old, core_new = old.removesuffix(trail), new.removesuffix(trail)
        if any(char in core_new for char in _BREAKS) or not _printable(core_new):
            raise Unsupported("line breaks in a folded block scalar")
        if core_new[:1] in (" ", "\t") or core_new[-1:] in (" ", "\t", ""):
            raise Unsupported("a folded block scalar with edge spaces")
        return (
            header
            + " " * indent
            + refold(body.removesuffix("\n")[indent:], "", core_old, core_new)
            + "\n"
        )

    def flow(self, node: Node, old: Any, new: Any) -> None:
        """A flow collection: scalars edited in place, else the whole (one-line) node as JSON."""
        inner = _Patcher(self.source)
        inner.seen = self.seen
        try:
            inner.patch(node, old, new, flow=True)
        except Unsupported:
            text = self.source[node.start_mark.index : node.end_mark.index]
            if "\n" in text:
                raise
            if not _printable(json.dumps(new, ensure_ascii=False)):
                raise
            self.edits.append(
                (node.start_mark.index, node.end_mark.index, json.dumps(new, ensure_ascii=False))
            )
            return
        self.edits.extend(inner.edits)

    def mapping(
        self, node: MappingNode, old: dict[str, Any], new: dict[str, Any], flow: bool
    ) -> None:
        entries: dict[str, tuple[Node, Node]] = {}
        for key, value in node.value:
            if not isinstance(key, ScalarNode) or key.value == "<<" or key.value in entries:
                raise Unsupported("a merge key or a complex key")
            entries[key.value] = (key, value)
        if entries.keys() != old.keys():
            raise Unsupported("keys that do not read as written")
        removed = [k for k in old if k not in new]
        added = [k for k in new if k not in old]
        if (removed or added) and flow:
            raise Unsupported("a key added to or removed from a flow mapping")
        if removed and len(removed) == len(old) and not added:
            raise Unsupported("a mapping emptied")
        for name, (key, value) in entries.items():
            if name in new:
                self.patch(value, old[name], new[name], flow)
            else:
                start = self.line_start(key.start_mark.index)
                if self.source[start : key.start_mark.index].strip():
                    raise Unsupported("a key removed from the line of a list item")
                self.edits.append((start, self.entry_end(value), ""))
        if added:
            first_key = node.value[0][0]
            indent = " " * first_key.start_mark.column
            snippet = dump_block({k: new[k] for k in added})
            lines = [indent + line if line else line for line in snippet.splitlines(keepends=True)]
            self.edits.append(self.insertion(self.entry_end(node.value[-1][1]), lines))

    def dash_start(self, item: Node) -> int:
        """The start of the line holding this block sequence item's `-`."""
        start = self.line_start(item.start_mark.index)
        if self.source[start : item.start_mark.index].strip() != "-":
            raise Unsupported("a list item not on its dash's line")
        return start

    def sequence(self, node: SequenceNode, old: list[Any], new: list[Any], flow: bool) -> None:
        if len(old) != len(new) and flow:
            raise Unsupported("a flow sequence resized")
        if len(old) != len(node.value) or (not new and old):
            raise Unsupported("a list emptied")
        for item, before, after in zip(node.value, old, new, strict=False):
            self.patch(item, before, after, flow)
        if len(new) < len(old):
            start = self.dash_start(node.value[len(new)])
            self.edits.append((start, self.entry_end(node.value[-1]), ""))
        elif len(new) > len(old):
            if not node.value:
                raise Unsupported("an empty block list")
            first = node.value[0]
            dash = self.dash_start(first)
            indent = self.source[dash : item_dash(self.source, dash)]
            snippet = dump_block(new[len(old) :])
            lines = [indent + line if line else line for line in snippet.splitlines(keepends=True)]
            self.edits.append(self.insertion(self.entry_end(node.value[-1]), lines))


def refold(span: str, quote: str, old: str, new: str) -> str:
    """A scalar written over several lines, edited where its value changed, its folds kept."""
    inner = span[1:-1] if quote else span
    if (quote == "'" and "''" in inner) or (quote == '"' and "\\" in inner):
        raise Unsupported("escapes in a folded scalar")
    lines = inner.split("\n")
    if any(not line.strip() for line in lines[1:-1]):
        raise Unsupported("a folded scalar with blank lines")
    pieces: list[str] = []  # the source text of each character of the value
    for number, line in enumerate(lines):
        content = line.strip(" \t") if number else line.rstrip(" \t")
        if number:
            pieces[-1] += line[: len(line) - len(line.lstrip(" \t"))]  # the next line's indent
        pieces.extend(content)
        if number < len(lines) - 1:
            pieces.append(line[len(line.rstrip(" \t")) :] + "\n")  # the fold, read as a space
    if "".join(" " if "\n" in p else p for p in pieces) != old:
        raise Unsupported("a folded scalar that does not read as a simple fold")
    out = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(
        None, old, new, autojunk=False
    ).get_opcodes():
        out.append("".join(pieces[i1:i2]) if tag == "equal" else _escaped(new[j1:j2], quote))
    return quote + "".join(out) + quote


def _escaped(text: str, quote: str) -> str:
    """New characters for the inside of a scalar quoted with `quote` ('' when plain)."""
    if quote == "'":
        return text.replace("'", "''")
    if quote == '"':
        return double_quoted(text)[1:-1]
    return text


def item_dash(source: str, line_start: int) -> int:
    """Index of the `-` on a list item's line."""
    return source.index("-", line_start)


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
    patcher = _Patcher(source)
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
            if field not in new or not same(new[field], old[field]):
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
