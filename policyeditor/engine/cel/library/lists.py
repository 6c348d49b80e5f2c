"""kubernetes.lists semantics (apiserver library/lists.go): isSorted, sum, min, max, indexOf..."""

from __future__ import annotations

import datetime
from typing import Any

from policyeditor.engine.cel.library.errors import LibraryError
from policyeditor.engine.cel.library.values import cel_equal, cel_less

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
UINT64_MAX = 2**64 - 1
# cel-go durations are int64 nanoseconds
_MAX_DURATION_NS = INT64_MAX


def is_sorted(items: list[Any]) -> bool:
    """True when no element is less than the one before it."""
    return all(not cel_less(b, a) for a, b in zip(items, items[1:], strict=False))


def _duration_ns(value: datetime.timedelta) -> int:
    return (value.days * 86400 + value.seconds) * 10**9 + value.microseconds * 1000


def list_sum(items: list[Any], zero: Any = 0) -> Any:
    """The sum of the elements (zero of the element type for an empty list), overflow-checked."""
    if not items:
        return zero
    total = items[0]
    for item in items[1:]:
        total = _add(total, item)
    is_int = isinstance(total, int) and not isinstance(total, bool)
    if is_int and not INT64_MIN <= total <= INT64_MAX:
        raise LibraryError("integer overflow")
    return total


def _add(left: Any, right: Any) -> Any:
    if isinstance(left, datetime.timedelta) and isinstance(right, datetime.timedelta):
        result = left + right
        if abs(_duration_ns(result)) > _MAX_DURATION_NS:
            raise LibraryError("integer overflow")
        return result
    if isinstance(left, bool) or isinstance(right, bool):
        raise TypeError("no such overload")
    if isinstance(left, int) and isinstance(right, int):
        total = left + right
        if not INT64_MIN <= total <= INT64_MAX:
            raise LibraryError("integer overflow")
        return total
    if isinstance(left, float) and isinstance(right, float):
        return left + right
    raise TypeError("no such overload")


def list_min(items: list[Any]) -> Any:
    """The smallest element; error `min called on empty list`."""
    return _extreme(items, "min", cel_less)


def list_max(items: list[Any]) -> Any:
    """The largest element; error `max called on empty list`."""
    return _extreme(items, "max", lambda a, b: cel_less(b, a))


def _extreme(items: list[Any], name: str, before: Any) -> Any:
    # The first element that no later one comes `before`, as the Kubernetes lists library scans.
    if not items:
        raise LibraryError(f"{name} called on empty list")
    best = items[0]
    for item in items[1:]:
        if before(item, best):
            best = item
    return best


def index_of(items: list[Any], value: Any) -> int:
    """Index of the first element equal to `value` (CEL equality), -1 if none."""
    for index, item in enumerate(items):
        if cel_equal(item, value):
            return index
    return -1


def last_index_of(items: list[Any], value: Any) -> int:
    """Index of the last element equal to `value` (CEL equality), -1 if none."""
    for index in range(len(items) - 1, -1, -1):
        if cel_equal(items[index], value):
            return index
    return -1


def includes(receiver: Any, value: Any) -> bool:
    """List membership; when the receiver is not a list, plain equality."""
    if isinstance(receiver, list):
        return index_of(receiver, value) >= 0
    return cel_equal(receiver, value)
