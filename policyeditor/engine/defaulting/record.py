"""What a defaulting pass writes, and the paths it wrote them at.

Go defaulters act on typed structs: a nil pointer or a zero value ("" or 0) is "unset", and a
struct held by value exists even when the JSON left it out. These helpers give the same view of
the decoded JSON: None, a missing key and the zero value are unset, and `child(..., value=True)`
makes the value-struct the Go decoder would have zero-filled. A value of the wrong JSON type is
left alone (validation reports it), so hostile input never makes a defaulter raise.

Copy on write: a defaulter runs on a shallow copy of the object and reaches every container it
writes into through `child` or `items`, which put a shallow copy of that container in its (already
copied) parent. The input is never changed, and the branches no defaulter walks into (metadata,
resources, ...) are shared instead of deep-copied for every evaluation.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Recorder:
    """The defaulted fields of one object, as dotted paths ("spec.template.spec.dnsPolicy")."""

    version: str
    paths: list[str] = field(default_factory=list)

    def set(self, obj: dict[str, Any], key: str, value: Any, path: str) -> None:
        """Write `value` at obj[key] and record the path."""
        obj[key] = value
        self.paths.append(f"{path}.{key}" if path else key)

    def default(self, obj: dict[str, Any], key: str, value: Any, path: str) -> None:
        """Set obj[key] when it is unset: missing, null or "" (a Go string's zero value)."""
        if obj.get(key) in (None, ""):
            obj[key] = value
            self.paths.append(f"{path}.{key}" if path else key)

    def default_number(self, obj: dict[str, Any], key: str, value: int, path: str) -> None:
        """Set a non-pointer int32 when it is missing, null or 0 (the Go zero value)."""
        current = obj.get(key)
        if current is None or (type(current) is int and current == 0):
            self.set(obj, key, value, path)

    def default_pointer(self, obj: dict[str, Any], key: str, value: Any, path: str) -> None:
        """Set a pointer field when it is missing or null ("" and 0 are set values)."""
        if obj.get(key) is None:
            obj[key] = value
            self.paths.append(f"{path}.{key}" if path else key)


def join(path: str, key: str | int) -> str:
    """The path of a field (`spec` + `replicas`) or list item (`ports` + 0) below `path`."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def child(
    obj: dict[str, Any], key: str, path: str, rec: Recorder, *, value: bool = False
) -> tuple[dict[str, Any] | None, str]:
    """A writable copy of the dict at obj[key] and its path ("" if none); value=True creates it."""
    # Most keys asked for (probes, lifecycle hooks, volume sources) are absent: no path is built
    # for them, since a defaulter only writes below a dict it got.
    current = obj.get(key)
    if isinstance(current, dict):
        owned = obj[key] = dict(current)
        return owned, f"{path}.{key}" if path else key
    if current is None and value:
        created: dict[str, Any] = {}
        obj[key] = created
        return created, f"{path}.{key}" if path else key
    return None, ""


def items(obj: dict[str, Any], key: str, path: str) -> list[tuple[dict[str, Any], str]]:
    """Writable copies of the dict items of the list at obj[key] with their paths (others skipped)."""
    values = obj.get(key)
    if not isinstance(values, list):
        return []
    owned = obj[key] = list(values)
    base = join(path, key)
    found = []
    for i, item in enumerate(values):
        if isinstance(item, dict):
            owned[i] = copied = dict(item)
            found.append((copied, f"{base}[{i}]"))
    return found


def deep_copy(value: Any) -> Any:
    """Copy nested dicts and lists without recursion (a hostile document may nest deeply)."""
    if not isinstance(value, dict | list):
        return value
    root: Any = {} if isinstance(value, dict) else []
    stack = [(value, root)]
    while stack:
        source, target = stack.pop()
        pairs = source.items() if isinstance(source, dict) else enumerate(source)
        for key, item in pairs:
            copied: Any = item
            if isinstance(item, dict | list):
                copied = {} if isinstance(item, dict) else []
                stack.append((item, copied))
            if isinstance(target, dict):
                target[key] = copied
            else:
                target.append(copied)
    return root
