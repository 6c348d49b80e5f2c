"""A changed scalar's new YAML text in the style it was written in; Unsupported when it has none.

Plain, single- and double-quoted scalars are rewritten on their line; a scalar folded over several
lines keeps its folds where its value did not change (`refold`).
"""

from __future__ import annotations

import difflib
import io
import json
from typing import Any

from yaml.emitter import Emitter

from policyeditor.engine.manifests.goyaml import go_plain_tag

_STR = "tag:yaml.org,2002:str"
BREAKS = ("\n", "\r", "\x85", "\u2028", "\u2029")


class Unsupported(Exception):
    """This change cannot be made as a text edit; the caller falls back to a structural dump."""


def printable(text: str) -> bool:
    """Whether every character may appear raw in a YAML scalar (YAML 1.1 c-printable, no breaks)."""
    for char in text:
        code = ord(char)
        if char in BREAKS or char == "\ufeff":
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
        out.append(char if printable(char) else f"\\u{ord(char):04x}")
    return '"' + "".join(out) + '"'


def plain_ok(text: str, flow: bool) -> bool:
    """Whether `text` reads back as this same string when written plain."""
    if not text or not printable(text) or go_plain_tag(text) != _STR:
        return False
    analysis = Emitter(io.StringIO()).analyze_scalar(text)
    return bool(analysis.allow_flow_plain if flow else analysis.allow_block_plain)


def plain_value(value: Any) -> str:
    """A null, boolean or number as YAML writes it plain; Unsupported for anything else."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return json.dumps(value)
    raise Unsupported("not a scalar")


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
