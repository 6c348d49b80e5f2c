"""CelIssue, and turning cel-expr-python's error text into cel-go / API-server wording."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any

# Positions: `line` is 1-based and `column` is 1-based, exactly the numbers cel-go prints in
# "ERROR: <input>:LINE:COLUMN: ..." (cel-go stores 0-based columns and prints column + 1).


@dataclass
class CelIssue:
    """One compile or runtime problem, worded like cel-go / the API server."""

    message: str
    line: int | None = None
    column: int | None = None
    snippet: str = ""
    phase: str = "compile"

    def __str__(self) -> str:
        if self.line is None:
            return self.message
        text = f"ERROR: <input>:{self.line}:{self.column}: {self.message}"
        return f"{text}\n{self.snippet}" if self.snippet else text

    def to_dict(self) -> dict[str, Any]:
        """JSON form for the API and `-o json`."""
        return asdict(self)


def format_issues(issues: list[CelIssue]) -> str:
    """cel-go's Issues.String(): every issue, newline separated."""
    return "\n".join(str(issue) for issue in issues)


def snippet_for(source: str, line: int, column: int) -> str:
    """The source line and a caret line in cel-go's style (` | src` / ` | ....^`)."""
    lines = source.split("\n")
    if not 1 <= line <= len(lines):
        return ""
    text = lines[line - 1]
    # cel-go pads with '.' for each code point before the column and uses full-width dots for
    # wide characters; plain dots are kept here.
    return f" | {text}\n | {'.' * max(column - 1, 0)}^"


def offset_to_line_column(source: str, offset: int) -> tuple[int, int]:
    """1-based line and column (cel-go printing convention) of a code-point offset."""
    offset = max(0, min(offset, len(source)))
    line = source.count("\n", 0, offset) + 1
    line_start = source.rfind("\n", 0, offset) + 1
    return line, offset - line_start + 1


def line_column_to_offset(source: str, line: int, column: int) -> int:
    """Inverse of offset_to_line_column."""
    start = 0
    for _ in range(line - 1):
        nl = source.find("\n", start)
        if nl < 0:
            break
        start = nl + 1
    return start + column - 1


_ISSUE_HEAD = re.compile(r"ERROR: <input>:(-?\d+):(-?\d+): ")
_STATUS_PREFIX = re.compile(r"^[A-Z_]+: ")
_STATUS_SUFFIX = re.compile(r" \[[A-Z_]+\]$")


def parse_engine_issues(text: str) -> list[tuple[int, int, str]]:
    """Split cel-expr-python's compile error text into (line, column, message) triples."""
    text = _STATUS_SUFFIX.sub("", _STATUS_PREFIX.sub("", text.strip()))
    heads = list(_ISSUE_HEAD.finditer(text))
    if not heads:
        return [(0, 0, text)]
    found = []
    for i, head in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
        body = text[head.end() : end]
        message = body.split("\n |", 1)[0].strip()
        line, column = int(head.group(1)), int(head.group(2))
        if line < 1:
            line = column = 0  # the engine gives -1:-1 for problems without a position
        entry = (line, column, message)
        if entry not in found:
            found.append(entry)
    return found


_COMPILE_REWRITES: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(r"^undefined field '([^']*)' not found in struct '[^']*'$"),
        r"undefined field '\1'",
    ),
    # google/cel-go parser/macro.go, makeHas
    (
        re.compile(r"^has\(\) argument must be a field selection$"),
        "invalid argument to has() macro",
    ),
    # google/cel-go checker/errors.go, typeDoesNotSupportFieldSelection
    (
        re.compile(r"^expression of type '(.*)' cannot be the operand of a select operation$"),
        r"type '\1' does not support field selection",
    ),
    # cel-expr-python's parser nests at most 32 levels (cel-go allows 250): an engine limit.
    (
        re.compile(r"^Exceeded max recursion depth of (\d+) when parsing\.?$"),
        r"expression nests more than \1 levels: a limit of the CEL engine used by policyeditor "
        r"(cel-expr-python), not of Kubernetes",
    ),
    (
        re.compile(r"^Expression recursion limit exceeded\. limit: (\d+)$"),
        r"expression nests more than \1 levels: a limit of the CEL engine used by policyeditor "
        r"(cel-expr-python), not of Kubernetes",
    ),
)


def translate_compile_message(message: str) -> str:
    """cel-go wording for one cel-expr-python compile message."""
    for pattern, replacement in _COMPILE_REWRITES:
        if pattern.match(message):
            return pattern.sub(replacement, message)
    return message


_RUNTIME_REWRITES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r'^Key not found in map : "(.*)"$', re.S), r"no such key: \1"),
    (re.compile(r"^Key not found in map : (.*)$", re.S), r"no such key: \1"),
    (re.compile(r"^divide by zero$"), "division by zero"),
    (re.compile(r"^modulus by zero$"), "modulus by zero"),
    (re.compile(r"^Index error: index=(-?\d+) size=\d+$"), r"index out of bounds: \1"),
    (re.compile(r"^index out of bounds.*$"), r"\g<0>"),
    (re.compile(r"^No matching overloads found : (.*)$", re.S), r"no such overload: \1"),
    (
        re.compile(r"^No value with name \"(.*)\" found in Activation.*$", re.S),
        r"no such attribute(s): \1",
    ),
    (re.compile(r"^String to Duration conversion failed$"), "duration conversion failed"),
    (
        re.compile(r"^<string>\.(?:substring|charAt)\(.*greater than <string>\.size\(\)$"),
        "index out of range",
    ),
)

_GO_TYPE_NAMES = (("int64", "int"), ("uint64", "uint"))


def translate_runtime_message(message: str) -> str:
    """cel-go wording for one cel-expr-python runtime error value text."""
    message = _STATUS_PREFIX.sub("", message.strip())
    regex = re.match(r"^invalid regular expression: (.*)$", message, re.S)
    if regex:
        from policyeditor.engine.cel.literals import go_regex_detail

        return "error parsing regexp: " + go_regex_detail(regex.group(1))
    for pattern, replacement in _RUNTIME_REWRITES:
        if pattern.match(message):
            message = pattern.sub(replacement, message)
            break
    if message.startswith("no such overload"):
        for engine_name, go_name in _GO_TYPE_NAMES:
            message = re.sub(rf"\b{engine_name}\b", go_name, message)
    return message
