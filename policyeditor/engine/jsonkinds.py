"""The JSON kind of a decoded value, the one type test behind every "got <type>" message."""

from __future__ import annotations

from typing import Any


def json_kind(value: Any) -> str:
    """null, boolean, integer, number, string, array, object, or other (not a JSON value)."""
    # bool before int: True is an int to Python, a boolean to JSON.
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "other"


def kind_name(value: Any, names: dict[str, str], default: str | None = None) -> str:
    """The caller's name for the kind of `value`; else `default`, else the Python type's name."""
    name = names.get(json_kind(value))
    if name is not None:
        return name
    return default if default is not None else type(value).__name__
