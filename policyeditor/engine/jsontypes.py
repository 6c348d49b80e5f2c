"""Typed access to the fields of JSON values (Kubernetes objects are JSON)."""

from __future__ import annotations

from typing import Any

# A Kubernetes object's fields stay Any: they are whatever the user wrote until a schema check
# says otherwise. These helpers give the "that field if it is a mapping/list, else empty" idiom
# a declared type, so callers need no cast.


def same_json(a: Any, b: Any) -> bool:
    """JSON equality as equality.Semantic.DeepEqual sees it: 1, 1.0 and true all differ."""
    # Python's == says 1 == 1.0 == True; Kubernetes' decoded JSON keeps int64, float64 and bool apart.
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same_json(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def object_at(obj: Any, key: str) -> dict[str, Any]:
    """obj[key] when obj is a mapping and that field is one; {} otherwise (absent or malformed)."""
    value = obj.get(key) if isinstance(obj, dict) else None
    return value if isinstance(value, dict) else {}


def list_at(obj: Any, key: str) -> list[Any]:
    """obj[key] when obj is a mapping and that field is a list; [] otherwise."""
    value = obj.get(key) if isinstance(obj, dict) else None
    return value if isinstance(value, list) else []
