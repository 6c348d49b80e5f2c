"""What JSON text may carry into a Kubernetes object: finite numbers and valid Unicode only.

Python's json module reads `1e400` as infinity and `"\\ud800"` as a lone surrogate; neither can be
written back as JSON (the API server's decoder refuses the number, and UTF-8 has no surrogates), so
a document holding one could be neither stored nor shown. Every reader of JSON input refuses them.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

# Only such an escape puts a surrogate into decoded JSON: text without one needs no walk.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def json_float(text: str) -> float:
    """json's parse_float hook: a number beyond float64's range is refused, not made infinite."""
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"unsupported value {text}: not a finite number")
    return value


def may_hold_surrogates(text: str) -> bool:
    """Whether JSON decoded from `text` can hold a surrogate (only a \\uD800-\\uDFFF escape makes one)."""
    return _SURROGATE_ESCAPE.search(text) is not None


def unstorable(value: Any) -> str | None:
    """Why `value` cannot be written as JSON text (a path and the reason), or None when it can."""
    try:
        json.dumps(value, allow_nan=False, ensure_ascii=False).encode("utf-8")
        return None
    except (ValueError, TypeError, UnicodeEncodeError, RecursionError):
        pass  # find where, below (iterative: the value may be deep)
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        item, path = stack.pop()
        if isinstance(item, dict):
            for key, child in reversed(list(item.items())):
                # A bad key is reported at its mapping: the message must not carry it.
                problem = (
                    _string_problem(key, path, "a field name") if isinstance(key, str) else None
                )
                if problem:
                    return problem
                stack.append((child, f"{path}.{key}" if path else str(key)))
        elif isinstance(item, list):
            stack.extend(
                (child, f"{path}[{index}]") for index, child in reversed(list(enumerate(item)))
            )
        elif isinstance(item, str):
            problem = _string_problem(item, path, "the value")
            if problem:
                return problem
        elif isinstance(item, float) and not math.isfinite(item):
            return f"{path or '<root>'}: unsupported value {item!r}: not a finite number"
        elif not (item is None or isinstance(item, bool | int | float)):
            return f"{path or '<root>'}: a {type(item).__name__} value has no JSON form"
    return "the value cannot be written as JSON"


def _string_problem(text: str, path: str, what: str) -> str | None:
    if text.isascii():
        return None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        code = ord(text[error.start])
        return (
            f"{path or '<root>'}: {what} holds an unpaired UTF-16 surrogate (\\u{code:04x}), "
            "which is not valid Unicode"
        )
    return None
