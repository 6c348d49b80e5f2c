"""CEL equality and ordering on the Python values cel-expr-python hands to implementations."""

from __future__ import annotations

import datetime
import math
from typing import Any

from google.protobuf.message import Message

_NUMBER = (int, float)


def _is_number(value: Any) -> bool:
    # bool is an int subclass in Python but a distinct type in CEL
    return isinstance(value, _NUMBER) and not isinstance(value, bool)


def cel_equal(left: Any, right: Any) -> bool:
    """CEL `==` (heterogeneous equality: 1 == 1.0, true != 1, lists and maps element-wise)."""
    left, right = _plain_bytes(left), _plain_bytes(right)
    if _is_number(left) and _is_number(right):
        if isinstance(left, float) and math.isnan(left):
            return False
        same: bool = left == right
        return same
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left == right
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(map(cel_equal, left, right))
    if isinstance(left, dict) and isinstance(right, dict):
        if len(left) != len(right):
            return False
        for key, value in left.items():
            match = _find_key(right, key)
            if match is _MISSING or not cel_equal(value, match):
                return False
        return True
    if isinstance(left, Message) and isinstance(right, Message):
        return type(left) is type(right) and left == right
    if type(left) is not type(right):
        return False
    return bool(left == right)


_MISSING = object()


def _find_key(mapping: dict[str, Any], key: Any) -> Any:
    for candidate, value in mapping.items():
        if cel_equal(candidate, key):
            return value
    return _MISSING


# The other ordered families, by Python class (bool before any int test: bool is an int there).
_ORDERED: tuple[tuple[type, str], ...] = (
    (bool, "bool"),
    (str, "string"),
    (bytes, "bytes"),
    (datetime.timedelta, "duration"),
    (datetime.datetime, "timestamp"),
)


def _plain_bytes(value: Any) -> Any:
    # cel-expr-python hands CEL bytes to Python as bytearray
    return bytes(value) if isinstance(value, bytearray) else value


def comparable_kind(value: Any) -> str | None:
    """The CEL ordering family of a value ('number', 'string', ...), None if it has no `<`."""
    value = _plain_bytes(value)
    if _is_number(value):
        return "number"
    return next((kind for cls, kind in _ORDERED if isinstance(value, cls)), None)


def cel_less(left: Any, right: Any) -> bool:
    """CEL `<` for comparable values of one family; TypeError (no such overload) otherwise."""
    kind = comparable_kind(left)
    if kind is None or kind != comparable_kind(right):
        raise TypeError("no such overload")
    left, right = _plain_bytes(left), _plain_bytes(right)
    if kind == "string":
        # Go compares strings byte-wise (UTF-8); code-point order is the same except for surrogates
        less: bool = left.encode("utf-8", "surrogatepass") < right.encode("utf-8", "surrogatepass")
        return less
    return bool(left < right)
