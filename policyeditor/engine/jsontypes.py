"""Types of JSON values (Kubernetes objects are JSON) and typed access to their fields."""

from __future__ import annotations

from typing import Any

# Any JSON value, as json.loads or the YAML loader builds it. Members stay Any: a Kubernetes
# object's fields are whatever the user wrote until a schema check says otherwise.
JSON = dict[str, Any] | list[Any] | str | int | float | bool | None
JSONObject = dict[str, Any]


def object_at(obj: Any, key: str) -> JSONObject:
    """obj[key] when obj is a mapping and that field is one; {} otherwise (absent or malformed)."""
    value = obj.get(key) if isinstance(obj, dict) else None
    return value if isinstance(value, dict) else {}


def list_at(obj: Any, key: str) -> list[Any]:
    """obj[key] when obj is a mapping and that field is a list; [] otherwise."""
    value = obj.get(key) if isinstance(obj, dict) else None
    return value if isinstance(value, list) else []
