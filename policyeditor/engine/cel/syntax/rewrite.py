"""Source rewrites that run before type checking, with a map back to the user's positions.

cel-expr-python's checker refuses two things Kubernetes accepts, so the text handed to it is
rewritten (every position reported to the user is mapped back to the original text):
- cross-type numeric comparisons (`1 < 1.5`): the right operand is wrapped in `dyn(...)`, which
  the checker accepts and the runtime compares numerically exactly as cel-go does;
- MAP object construction (`Object{spec: Object.spec{...}}`, `JSONPatch{op: ...}`): turned into
  helper calls over map literals, so values keep their exact JSON types (a protobuf Value would
  turn ints into doubles) and type names are checked against the field path at runtime.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from policyeditor.engine.cel.runtime.functions import JSONPATCH_FN, OBJECT_FN
from policyeditor.engine.cel.syntax.lexer import matching_close, relation_operand_end


@dataclass
class Rewrite:
    """Original source plus edits (start, end, replacement) in original coordinates."""

    original: str
    edits: list[tuple[int, int, str]] = field(default_factory=list)
    _text: str | None = None

    def add(self, start: int, end: int, text: str) -> None:
        """Replace original[start:end] with text (an insertion when start == end)."""
        self.edits.append((start, end, text))
        self._text = None

    @property
    def text(self) -> str:
        """The rewritten source."""
        if self._text is None:
            parts = []
            pos = 0
            for start, end, text in sorted(self.edits, key=lambda e: (e[0], e[1])):
                parts.append(self.original[pos:start])
                parts.append(text)
                pos = max(pos, end)
            parts.append(self.original[pos:])
            self._text = "".join(parts)
        return self._text

    def to_original(self, offset: int) -> int:
        """Map an offset in the rewritten text back to the original text."""
        delta = 0
        for start, end, text in sorted(self.edits, key=lambda e: (e[0], e[1])):
            new_start = start + delta
            if offset < new_start:
                break
            if offset < new_start + len(text):
                return start
            delta += len(text) - (end - start)
        return max(0, min(len(self.original), offset - delta))


_OPERATOR_AT = re.compile(r"<=|>=|<|>")


def wrap_right_operand(rewrite: Rewrite, operator_offset: int) -> bool:
    """Wrap the right operand of the relational operator at operator_offset in dyn(); False if none."""
    source = rewrite.original
    match = _OPERATOR_AT.match(source, operator_offset)
    if match is None:
        return False
    start = match.end()
    while start < len(source) and source[start].isspace():
        start += 1
    end = relation_operand_end(source, start)
    if end <= start:
        return False
    rewrite.add(start, start, "dyn(")
    rewrite.add(end, end, ")")
    return True


_NAME_BEFORE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def _field_name_span(source: str, colon: int) -> tuple[int, int] | None:
    i = colon
    while i > 0 and source[i - 1].isspace():
        i -= 1
    match = _NAME_BEFORE.search(source[:i])
    return (match.start(), i) if match else None


def _is_construction_name(name: str) -> bool:
    return name in ("Object", "JSONPatch") or name.startswith("Object.")


def construction_rewrites(
    rewrite: Rewrite, parsed_expr: Any, positions: dict[int, int]
) -> list[str]:
    """Rewrite every Object.../JSONPatch construction of a parsed AST; return problems found."""
    from policyeditor.engine.cel.syntax.walk import walk

    problems: list[str] = []
    source = rewrite.original
    for node in walk(parsed_expr):
        if node.WhichOneof("expr_kind") != "struct_expr":
            continue
        name = node.struct_expr.message_name
        if not name or not _is_construction_name(name.lstrip(".")):
            continue
        start = positions.get(node.id)
        if start is None:
            continue
        brace = source.find("{", start)
        close = matching_close(source, brace) if brace >= 0 else None
        if close is None:
            problems.append(f"cannot rewrite construction of {name}")
            continue
        clean = name.lstrip(".")
        head = f"{OBJECT_FN}('{clean}', {{" if clean != "JSONPatch" else f"{JSONPATCH_FN}({{"
        rewrite.add(start, brace + 1, head)
        for entry in node.struct_expr.entries:
            colon = positions.get(entry.id)
            if colon is None or source[colon : colon + 1] != ":":
                continue
            span = _field_name_span(source, colon)
            if span is not None:
                rewrite.add(span[0], span[1], repr(entry.field_key))
        rewrite.add(close, close + 1, "})")
    return problems


_CONSTRUCTION_HINT = re.compile(r"(?:Object(?:\.[A-Za-z_][A-Za-z0-9_]*)*|JSONPatch)\s*\{")


def may_construct(source: str) -> bool:
    """Cheap test: could source contain an Object/JSONPatch construction?"""
    return _CONSTRUCTION_HINT.search(source) is not None
