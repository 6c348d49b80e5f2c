"""CEL declarations of kubernetes.format, and the source rewrite that makes their optionals.

Kubernetes declares `format.named(string) -> optional(Format)` and
`Format.validate(string) -> optional(list(string))`. A Python implementation cannot return an
optional in cel-expr-python ("Unimplemented type"), so the implementations return a map instead:
`{}` for none, `{"": value}` for some, and the expression text gets `[?""]` right after each such
call. `m[?""]` is exactly optional.none() / optional.of(value), and type-checks as
optional(list(string)) / optional(kubernetes.NamedFormat).

cel-core: before type checking, insert OPTIONAL_SUFFIX at every offset of
`optional_suffix_offsets(source)` (offsets in the original text; nothing else moves).
"""

from __future__ import annotations

from typing import Any

from policyeditor.engine.cel.library import formats
from policyeditor.engine.cel.library.decls import Spec
from policyeditor.engine.cel.library.types import FORMAT, FormatFields, FormatMessage

OPTIONAL_SUFFIX = '[?""]'
_IDENT = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def _named(name: str) -> dict[str, Any]:
    return {"": FormatMessage(name=name)} if name in formats.FORMATS else {}


def _validate(fmt: FormatFields, value: str) -> dict[str, Any]:
    errors = formats.validate(fmt.name, value)
    return {"": errors} if errors else {}


def _constructor(name: str) -> Spec:
    message = FormatMessage(name=name)
    return Spec(f"format.{name}", f"format_{name}", (), FORMAT, False, lambda: message)


def specs(version: int) -> list[Spec]:
    """All overloads of the library (see the module docstring for the optional results)."""
    return [
        *(_constructor(name) for name in formats.FORMATS),
        Spec("format.named", "format_named", ("string",), f"map<string, {FORMAT}>", False, _named),
        Spec(
            "validate",
            "format_validate",
            (FORMAT, "string"),
            "map<string, list<string>>",
            True,
            _validate,
        ),
    ]


def _skip_string(source: str, i: int) -> int:
    """Index just past the string literal starting at source[i] (with r/b prefixes handled)."""
    j = i
    raw = False
    while j < len(source) and source[j] in "rRbB":
        raw = raw or source[j] in "rR"
        j += 1
    quote = source[j]
    triple = source.startswith(quote * 3, j)
    delimiter = quote * 3 if triple else quote
    j += len(delimiter)
    while j < len(source):
        if not raw and source[j] == "\\":
            j += 2
            continue
        if source.startswith(delimiter, j):
            return j + len(delimiter)
        j += 1
    return len(source)


def _tokens(source: str) -> list[tuple[int, int, str]]:
    """(start, end, text) of identifiers, punctuation and literals, skipping strings/comments."""
    tokens = []
    i = 0
    while i < len(source):
        char = source[i]
        if char.isspace():
            i += 1
        elif source.startswith("//", i):
            end = source.find("\n", i)
            i = len(source) if end < 0 else end
        elif char in "'\"" or (
            char in "rRbB" and _string_prefix_at(source, i) and not _ident_before(source, i)
        ):
            end = _skip_string(source, i)
            tokens.append((i, end, "<str>"))
            i = end
        elif char in _IDENT:
            j = i
            while j < len(source) and source[j] in _IDENT:
                j += 1
            tokens.append((i, j, source[i:j]))
            i = j
        else:
            tokens.append((i, i + 1, char))
            i += 1
    return tokens


def _string_prefix_at(source: str, i: int) -> bool:
    j = i
    while j < len(source) and j - i < 2 and source[j] in "rRbB":
        j += 1
    return j < len(source) and source[j] in "'\""


def _ident_before(source: str, i: int) -> bool:
    return i > 0 and source[i - 1] in _IDENT


def optional_suffix_offsets(source: str) -> list[int]:
    """Offsets just after each `….validate(…)` / `format.named(…)` call's closing parenthesis."""
    if "validate" not in source and "named" not in source:
        return []
    tokens = _tokens(source)
    offsets = []
    for index, (_start, _end, text) in enumerate(tokens):
        if index + 1 >= len(tokens) or tokens[index + 1][2] != "(":
            continue
        previous = tokens[index - 1][2] if index >= 1 else ""
        is_validate = text == "validate" and previous == "."
        is_named = (
            text == "named"
            and previous == "."
            and index >= 2
            and tokens[index - 2][2] == "format"
            and (index < 3 or tokens[index - 3][2] != ".")
        )
        if not (is_validate or is_named):
            continue
        depth = 0
        for _s, end, token in tokens[index + 1 :]:
            if token in "([{":
                depth += 1
            elif token in ")]}":
                depth -= 1
                if depth == 0:
                    offsets.append(end)
                    break
    return offsets


def rewrite_source(source: str) -> str:
    """`source` with OPTIONAL_SUFFIX inserted at every optional_suffix_offsets position."""
    out = []
    previous = 0
    for offset in optional_suffix_offsets(source):
        out.append(source[previous:offset])
        out.append(OPTIONAL_SUFFIX)
        previous = offset
    out.append(source[previous:])
    return "".join(out)
