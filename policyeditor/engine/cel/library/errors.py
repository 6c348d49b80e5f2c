"""The error a library function raises, and the guard that keeps Python exceptions inside it."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from policyeditor.engine.cel.runtime.memory import note

# cel-expr-python turns an exception raised in a Python implementation into a CEL error value whose
# text is "<STATUS>: <str(exc)>" (a LibraryError reads "UNKNOWN: <message>"). cel-core strips this
# prefix (strip_status) when translating runtime errors, so the rest reads as Kubernetes'.
STATUS_PREFIX = "UNKNOWN: "


class LibraryError(ValueError):
    """A Kubernetes CEL library runtime error; str() is the Kubernetes/cel-go message."""


def strip_status(text: str) -> str:
    """Drop cel-expr-python's "STATUS: " prefix from a runtime error text, if present."""
    head, sep, rest = text.partition(": ")
    if sep and head.isupper() and head.replace("_", "").isalpha():
        return rest
    return text


def parses(parse: Callable[..., Any], *args: Any) -> bool:
    """True when `parse(*args)` succeeds: the isIP, isCIDR, isQuantity, isURL, isSemver checks."""
    try:
        parse(*args)
    except LibraryError:
        return False
    return True


def guarded(function: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap an implementation so unexpected Python errors surface as cel-go's `no such overload`."""

    @functools.wraps(function)
    def wrapper(*args: Any) -> Any:
        try:
            return function(*args)
        except LibraryError:
            raise
        except MemoryError:
            # Not an overload error: the evaluation stops (runtime/memory.py), so mark it and
            # let the engine report the status of a MemoryError.
            note()
            raise
        except Exception as exc:  # an argument of a type we did not expect (or a bug)
            # cel-go's wording for a dynamic argument no overload accepts
            raise LibraryError("no such overload") from exc

    return wrapper
