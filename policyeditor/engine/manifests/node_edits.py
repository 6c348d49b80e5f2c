"""Text edits that turn one YAML node's value into another, the rest of the source kept as written.

Changed scalars are rewritten in place in their own style (yaml_scalars), added keys and list items
are inserted after their siblings, removed ones are cut out by whole lines; a flow collection that
cannot be edited piecewise is rewritten whole when it fits on its line.
"""

from __future__ import annotations

import json
import re
from typing import Any

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from policyeditor.engine.jsontypes import same_json
from policyeditor.engine.manifests.dump import dump_block
from policyeditor.engine.manifests.yaml_scalars import (
    BREAKS,
    Unsupported,
    double_quoted,
    plain_ok,
    plain_value,
    printable,
    refold,
)

Edit = tuple[int, int, str]


class NodePatcher:
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
        if same_json(old, new):
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
            return plain_value(new)
        span = self.source[node.start_mark.index : node.end_mark.index]
        if style in (None, "'", '"') and "\n" in span and isinstance(old, str):
            if style is None and not plain_ok(new, flow):
                raise Unsupported("a folded plain scalar that cannot stay plain")
            return refold(span, style or "", old, new)
        if style == "|":
            return self.literal(node, new)
        if style == ">" and isinstance(old, str):
            return self.folded(node, old, new)
        if any(char in new for char in BREAKS):
            raise Unsupported("a multi-line scalar")
        if style == "'" and printable(new):
            return "'" + new.replace("'", "''") + "'"
        if style is None and plain_ok(new, flow):
            return new
        return double_quoted(new)

    def literal(self, node: ScalarNode, new: str) -> str:
        """`new` as a literal block scalar with the old one's indentation and header comment."""
        if "\n" not in new or new.endswith("\n\n") or new[:1] in (" ", "\t"):
            raise Unsupported("a block scalar that needs another header")
        if any(char in new for char in BREAKS[1:]) or not printable(new.replace("\n", "")):
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
        if any(char in core_new for char in BREAKS) or not printable(core_new):
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
        inner = NodePatcher(self.source)
        inner.seen = self.seen
        try:
            inner.patch(node, old, new, flow=True)
        except Unsupported:
            text = self.source[node.start_mark.index : node.end_mark.index]
            if "\n" in text:
                raise
            if not printable(json.dumps(new, ensure_ascii=False)):
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


def item_dash(source: str, line_start: int) -> int:
    """Index of the `-` on a list item's line."""
    return source.index("-", line_start)
