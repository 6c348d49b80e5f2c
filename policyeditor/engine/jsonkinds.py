"""The JSON kind of a decoded value, the one type test behind every "got <type>" message."""

from __future__ import annotations

from typing import Any


def json_kind(value: Any) -> str:
    """null, boolean, integer, number, string, array, object, or other (not a JSON value)."""
    for python_type, kind in _KINDS:
        if isinstance(value, python_type):
            return kind
    return "other"


# bool before int: True is an int to Python, a boolean to JSON.
_KINDS = (
    (type(None), "null"),
    (bool, "boolean"),
    (int, "integer"),
    (float, "number"),
    (str, "string"),
    (list, "array"),
    (dict, "object"),
)


# Each message's name for each kind, in the words of the code it mirrors: cel-go's type names
# (cel), Go's %T (go), encoding/json's "cannot unmarshal <kind>" (unmarshal), structured-merge-diff
# apply errors (apply), and this project's manifest and API input errors. None: the Python type.
_DIALECTS = ("cel", "go", "unmarshal", "apply", "manifest", "api")
_NAMES: dict[str, tuple[str | None, ...]] = {
    "null": ("null_type", "<nil>", "value", None, None, "null"),
    "boolean": ("bool", "bool", "bool", "bool", "a boolean", "a boolean"),
    "integer": ("int", "int64", "number", "number", "a number", "a number"),
    "number": ("double", "float64", "number", "number", "a number", "a number"),
    "string": (None, "string", "string", "string", "a string", "a string"),
    "array": ("list", "[]interface {}", "array", "list", "a list", "a list"),
    "object": ("map", "map[string]interface {}", "object", "map", None, "an object"),
    "other": (None, "<nil>", "value", None, None, "an object"),
}


def type_name(value: Any, dialect: str) -> str:
    """The name `dialect` (cel, go, unmarshal, apply, manifest, api) gives the kind of `value`."""
    name = _NAMES[json_kind(value)][_DIALECTS.index(dialect)]
    return name if name is not None else type(value).__name__
