"""Typed access to the fields of JSON values (Kubernetes objects are JSON)."""

from __future__ import annotations

from typing import Any

# A Kubernetes object's fields stay Any: they are whatever the user wrote until a schema check
# says otherwise. These helpers give the "that field if it is a mapping/list, else empty" idiom
# a declared type, so callers need no cast.


def object_at(obj: Any, key: str) -> dict[str, Any]:
    """obj[key] when obj is a mapping and that field is one; {} otherwise (absent or malformed)."""
    value = obj.get(key) if isinstance(obj, dict) else None
    return value if isinstance(value, dict) else {}


def list_at(obj: Any, key: str) -> list[Any]:
    """obj[key] when obj is a mapping and that field is a list; [] otherwise."""
    value = obj.get(key) if isinstance(obj, dict) else None
    return value if isinstance(value, list) else []
