"""A small CEL tokenizer: just enough to find operand and literal extents for source rewrites."""

from __future__ import annotations

import re
from dataclasses import dataclass

# The RESERVED symbols of the CEL grammar (cel-spec doc/langdef.md, Syntax; k8s.io/apiserver
# pkg/cel/escaping.go, celReservedSymbols): never an identifier.
RESERVED_WORDS = frozenset(
    [
        "true",
        "false",
        "null",
        "in",
        "as",
        "break",
        "const",
        "continue",
        "else",
        "for",
        "function",
        "if",
        "import",
        "let",
        "loop",
        "package",
        "namespace",
        "return",
        "var",
        "void",
        "while",
    ]
)
_PUNCT = ("&&", "||", "==", "!=", "<=", ">=", ".?")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NUMBER = re.compile(r"0[xX][0-9a-fA-F]+[uU]?|(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?[uU]?")
_STRING_PREFIX = re.compile(r"(?:[rR][bB]?|[bB][rR]?)?(?='|\")")


@dataclass(frozen=True)
class Token:
    """One token: its text and [start, end) offsets in code points."""

    text: str
    start: int
    end: int
    kind: str  # "ident" | "number" | "string" | "punct"


def _string_end(source: str, pos: int) -> int:
    """End offset of the string literal starting at pos (prefix included); len(source) if open."""
    prefix = _STRING_PREFIX.match(source, pos)
    assert prefix is not None
    raw = "r" in prefix.group(0).lower()
    i = prefix.end()
    quote = source[i]
    delim = quote * 3 if source.startswith(quote * 3, i) else quote
    i += len(delim)
    while i < len(source):
        if not raw and source[i] == "\\":
            i += 2
            continue
        if source.startswith(delim, i):
            return i + len(delim)
        if len(delim) == 1 and source[i] == "\n":
            return i
        i += 1
    return len(source)


def tokenize(source: str, start: int = 0) -> list[Token]:
    """All tokens of source from offset start (comments and whitespace dropped)."""
    tokens: list[Token] = []
    i = start
    n = len(source)
    while i < n:
        ch = source[i]
        if ch.isspace():
            i += 1
            continue
        if source.startswith("//", i):
            nl = source.find("\n", i)
            i = n if nl < 0 else nl + 1
            continue
        prefix = _STRING_PREFIX.match(source, i)
        if prefix is not None and (ch in "'\"" or prefix.end() > i):
            end = _string_end(source, i)
            tokens.append(Token(source[i:end], i, end, "string"))
            i = end
            continue
        number = _NUMBER.match(source, i)
        starts_number = ch.isdigit() or (ch == "." and source[i + 1 : i + 2].isdigit())
        if number is not None and number.end() > i and starts_number:
            tokens.append(Token(number.group(0), i, number.end(), "number"))
            i = number.end()
            continue
        ident = _IDENT.match(source, i)
        if ident is not None:
            tokens.append(Token(ident.group(0), i, ident.end(), "ident"))
            i = ident.end()
            continue
        two = source[i : i + 2]
        if two in _PUNCT:
            tokens.append(Token(two, i, i + 2, "punct"))
            i += 2
            continue
        tokens.append(Token(ch, i, i + 1, "punct"))
        i += 1
    return tokens


_OPEN = {"(": ")", "[": "]", "{": "}"}
_CLOSE = {")", "]", "}"}
# Tokens that end the right operand of a relational operator at bracket depth 0 (CEL grammar:
# relation := calc (relop calc)*, so anything of lower or equal precedence stops the operand).
_RELATION_STOP = {"<", "<=", ">", ">=", "==", "!=", "&&", "||", "?", ":", ","}


def relation_operand_end(source: str, start: int) -> int:
    """End offset of the arithmetic operand that starts at start (right side of `<`, `==`...)."""
    depth = 0
    end = start
    for token in tokenize(source, start):
        text = token.text
        if depth == 0 and (text in _RELATION_STOP or text in _CLOSE or text == "in"):
            break
        if text in _OPEN:
            depth += 1
        elif text in _CLOSE:
            depth -= 1
        end = token.end
    return end


def matching_close(source: str, open_pos: int) -> int | None:
    """Offset of the bracket closing the one at open_pos, or None when unbalanced."""
    depth = 0
    for token in tokenize(source, open_pos):
        if token.text in _OPEN:
            depth += 1
        elif token.text in _CLOSE:
            depth -= 1
            if depth == 0:
                return token.start
    return None
