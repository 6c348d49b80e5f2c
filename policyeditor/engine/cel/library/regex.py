"""kubernetes.regex semantics: `find` and `findAll` with Go regexp (RE2) matching and errors."""

from __future__ import annotations

import functools

import re2

from policyeditor.engine.cel.library.errors import LibraryError

_OPTIONS = re2.Options()
_OPTIONS.log_errors = False  # RE2 would print every bad pattern to stderr

# RE2 C++ error text -> Go regexp/syntax ErrorCode text (same parser, different wording)
_GO_CODES = (
    ("unexpected )", "unexpected )"),
    ("missing )", "missing closing )"),
    ("missing ]", "missing closing ]"),
    ("bad repetition operator", "invalid nested repetition operator"),
    ("trailing \\", "trailing backslash at end of expression"),
    ("invalid repetition size", "invalid repeat count"),
    ("invalid named capture group", "invalid named capture"),
    ("invalid escape sequence", "invalid escape sequence"),
    ("invalid perl operator", "invalid or unsupported Perl syntax"),
    ("invalid character class range", "invalid character class range"),
    ("invalid character class", "invalid character class"),
    ("missing argument to repetition operator", "missing argument to repetition operator"),
    ("invalid UTF-8", "invalid UTF-8"),
    ("pattern too large", "expression too large"),
    ("bad nesting depth", "expression nests too deeply"),
)


def _go_error(pattern: str, raw: str) -> str:
    for re2_text, go_text in _GO_CODES:
        if raw.startswith(re2_text):
            fragment = raw[len(re2_text) :].removeprefix(":").strip()
            if go_text.startswith("trailing backslash"):
                fragment = ""
            return f"error parsing regexp: {go_text}: `{fragment}`"
    return f"error parsing regexp: {raw}"


class RegexError(LibraryError):
    """A pattern Go's regexp.Compile rejects; str() is Go's `error parsing regexp: ...`."""


@functools.lru_cache(maxsize=512)
def compile_regex(pattern: str) -> re2._Regexp:
    """Compile with RE2 (Go's syntax); RegexError with Go's message when invalid."""
    try:
        return re2.compile(pattern, _OPTIONS)
    except re2.error as exc:
        raw = exc.args[0] if exc.args else str(exc)
        if isinstance(raw, bytes):
            raw = raw.decode("utf-8", "replace")
        raise RegexError(_go_error(pattern, str(raw))) from None


def regex_error(pattern: str) -> str | None:
    """Go's compile error for `pattern`, or None when it is valid (for constant-pattern checks)."""
    try:
        compile_regex(pattern)
    except RegexError as exc:
        return str(exc)
    return None


def _compiled(pattern: str) -> re2._Regexp:
    try:
        return compile_regex(pattern)
    except RegexError as exc:
        # what the library returns for a pattern only known at runtime
        raise LibraryError(f"Illegal regex: {exc}") from None


def find(text: str, pattern: str) -> str:
    """Go FindString: the leftmost-first match, '' when there is none."""
    match = _compiled(pattern).search(text)
    return match.group(0) if match else ""


def find_all(text: str, pattern: str, limit: int = -1) -> list[str]:
    """Go FindAllString(text, limit): n < 0 all, 0 none; empty matches next to a match are skipped."""
    regex = _compiled(pattern)
    found: list[str] = []
    position = 0
    previous_end = -1
    while (limit < 0 or len(found) < limit) and position <= len(text):
        match = regex.search(text, position)
        if match is None:
            break
        start, end = match.span()
        if start == end == previous_end:
            # Go ignores an empty match abutting the preceding match
            position = end + 1
            continue
        found.append(match.group(0))
        previous_end = end
        position = end if end > start else end + 1
    return found
