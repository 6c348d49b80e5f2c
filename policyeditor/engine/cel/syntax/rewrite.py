"""Source rewrites that run before type checking, with a map back to the user's positions.

cel-expr-python's checker refuses two things Kubernetes accepts, so the text handed to it is
rewritten (every position reported to the user is mapped back to the original text):
- cross-type numeric comparisons (`1 < 1.5`): the right operand is wrapped in `dyn(...)`, which
  the checker accepts and the runtime compares numerically exactly as cel-go does;
- MAP object construction (`Object{spec: Object.spec{...}}`, `JSONPatch{op: ...}`): turned into
  helper calls over map literals, so values keep their exact JSON types (a protobuf Value would
  turn ints into doubles) and type names are checked against the field path at runtime;
- presence tests of composited variables (`has(variables.x)`): cel-expr-python's checker reads the
  qualified name `variables.x` as the variable itself and drops the test, so the call is turned
  into the helper that resolves the variable and answers true (or the variable's error).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from policyeditor.engine.cel.runtime.functions import JSONPATCH_FN, OBJECT_FN, VARIABLE_READY_FN
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


_HAS_BEFORE = re.compile(r"\bhas\s*\Z")


def variable_presence_rewrites(
    rewrite: Rewrite, parsed_expr: Any, positions: dict[int, int], declared: tuple[str, ...]
) -> None:
    """Rewrite each `has(variables.x)` of a declared x as `__k8s_variable_ready('x')`.

    Kubernetes declares `variables` as an object type backed by a lazy map
    (kubernetes/kubernetes staging/src/k8s.io/apiserver/pkg/admission/plugin/cel/composition.go,
    CompositedCompiler; staging/src/k8s.io/apiserver/pkg/cel/lazy/lazy.go, MapValue.Find): the
    presence test resolves the variable, so it is true for a declared variable whose expression
    evaluates, and the variable's error otherwise (google/cel-go interpreter/attributes.go,
    refQualify). Undeclared names are left to the checker, which reports the missing field.
    """
    from policyeditor.engine.cel.syntax.walk import walk

    nodes = list(walk(parsed_expr))
    if any(
        node.WhichOneof("expr_kind") == "comprehension_expr"
        and "variables"
        in (
            node.comprehension_expr.iter_var,
            node.comprehension_expr.accu_var,
            getattr(node.comprehension_expr, "iter_var2", ""),
        )
        for node in nodes
    ):
        return  # a loop variable named `variables` shadows the declared object: nothing to do
    source = rewrite.original
    names = set(declared)
    for node in nodes:
        if node.WhichOneof("expr_kind") != "select_expr" or not node.select_expr.test_only:
            continue
        operand = node.select_expr.operand
        if operand.WhichOneof("expr_kind") != "ident_expr":
            continue
        if operand.ident_expr.name != "variables" or node.select_expr.field not in names:
            continue
        position = positions.get(node.id)
        if position is None:
            continue
        span = _has_call_span(source, position)
        if span is None:
            continue
        rewrite.add(span[0], span[1], f"{VARIABLE_READY_FN}({node.select_expr.field!r})")


def _has_call_span(source: str, position: int) -> tuple[int, int] | None:
    """[start, end) of the `has(...)` call whose macro node is reported at position."""
    if source.startswith("has", position):
        start = position
        paren = source.find("(", position)
    else:
        before = _HAS_BEFORE.search(source[:position])
        if before is None or source[position : position + 1] != "(":
            return None
        start, paren = before.start(), position
    close = matching_close(source, paren) if paren >= 0 else None
    return None if close is None else (start, close + 1)


_PRESENCE_HINT = re.compile(r"\bhas\s*\(\s*variables\b")


def may_test_variables(source: str) -> bool:
    """Cheap test: could source contain a presence test of a composited variable?"""
    return _PRESENCE_HINT.search(source) is not None
