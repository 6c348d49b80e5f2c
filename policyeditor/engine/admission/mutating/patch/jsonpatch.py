"""JSON Patch with evanphx/json-patch v4 semantics (what kube-apiserver applies MAP patches with).

Follows evanphx/json-patch (v4) patch.go, Patch.Apply, as kubernetes/kubernetes
staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/mutating/patch/json_patch.go,
jsonPatcher.Patch calls it. Quirks kept on purpose: `replace` of a missing object member adds it, a failed
`test` makes the whole patch a no-op (MAP), negative array indices count from the end, JSON null
members count as missing when walking a path, and errors carry the library's wording.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any

_MISSING_VALUE = "missing value"
_INVALID_INDEX = "invalid index referenced"
_ATOI = re.compile(r"^[+-]?[0-9]+$")


class JSONPatchError(Exception):
    """A patch that cannot be applied; str() is the library's error text."""


class PatchTestFailed(JSONPatchError):
    """A `test` operation did not hold (ErrTestFailed): Kubernetes then skips the whole patch."""


def decode_key(part: str) -> str:
    """RFC 6901 unescaping: "~1" is "/", "~0" is "~" (one pass, like Go's strings.Replacer)."""
    return re.sub(r"~[01]", lambda m: "/" if m.group(0) == "~1" else "~", part)


def escape_key(key: str) -> str:
    """RFC 6901 escaping, as jsonpatch.escapeKey does in CEL."""
    return key.replace("~", "~0").replace("/", "~1")


def _atoi(text: str) -> int:
    if not _ATOI.match(text):
        raise ValueError(f'strconv.Atoi: parsing "{text}": invalid syntax')
    return int(text)


def _json_equal(a: Any, b: Any) -> bool:
    """JSON equality as Go's decoded interface{} values compare (numbers as float64)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return float(a) == float(b)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_json_equal(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


class _Container:
    """A dict or list being patched, with the library's get/set/add/remove rules."""

    def __init__(self, target: dict[str, Any] | list[Any]) -> None:
        self.target = target

    def get(self, key: str) -> Any:
        """The member or element; None when missing (dict) — raises for bad list indices."""
        if isinstance(self.target, dict):
            return self.target.get(key)
        index = self._index(key, len(self.target), allow_end=False)
        return self.target[index]

    def _index(self, key: str, size: int, *, allow_end: bool) -> int:
        index = _atoi(key)
        if index < 0:
            if index < -size:
                raise JSONPatchError(f"Unable to access invalid index: {index}: {_INVALID_INDEX}")
            index += size
        if index > size or (index == size and not allow_end):
            raise JSONPatchError(f"Unable to access invalid index: {index}: {_INVALID_INDEX}")
        return index

    def set(self, key: str, value: Any) -> None:
        if isinstance(self.target, dict):
            self.target[key] = value
            return
        self.target[self._index(key, len(self.target), allow_end=False)] = value

    def add(self, key: str, value: Any) -> None:
        if isinstance(self.target, dict):
            self.target[key] = value
            return
        if key == "-":
            self.target.append(value)
            return
        try:
            index = _atoi(key)
        except ValueError as exc:
            raise JSONPatchError(f"value was not a proper array index: '{key}': {exc}") from None
        size = len(self.target) + 1
        if index >= size:
            raise JSONPatchError(f"Unable to access invalid index: {index}: {_INVALID_INDEX}")
        if index < 0:
            if index < -size:
                raise JSONPatchError(f"Unable to access invalid index: {index}: {_INVALID_INDEX}")
            index += size
        self.target.insert(index, value)

    def remove(self, key: str) -> None:
        if isinstance(self.target, dict):
            if key not in self.target:
                raise JSONPatchError(f"Unable to remove nonexistent key: {key}: {_MISSING_VALUE}")
            del self.target[key]
            return
        index = _atoi(key)
        size = len(self.target)
        if index >= size or index < -size:
            raise JSONPatchError(f"Unable to access invalid index: {index}: {_INVALID_INDEX}")
        del self.target[index if index >= 0 else index + size]


def _find(doc: Any, path: str) -> tuple[_Container | None, str]:
    """findObject: the container holding the last path segment, and that segment decoded."""
    split = path.split("/")
    if len(split) < 2:
        return None, ""
    current = doc
    for part in split[1:-1]:
        if not isinstance(current, dict | list):
            return None, ""
        try:
            current = _Container(current).get(decode_key(part))
        except (JSONPatchError, ValueError):
            return None, ""
        if not isinstance(current, dict | list):
            return None, ""
    if not isinstance(current, dict | list):
        return None, ""
    return _Container(current), decode_key(split[-1])


def _string_field(op: dict[str, Any], name: str, what: str) -> str:
    value = op.get(name)
    if not isinstance(value, str):
        raise JSONPatchError(f"{what} operation failed to decode {name}: {_MISSING_VALUE}")
    return value


def _wrap(message: str, exc: Exception) -> JSONPatchError:
    return JSONPatchError(f"{message}: {exc}")


def _found(doc: Any, path: str, missing: str) -> tuple[_Container, str]:
    """The container and key of `path`; JSONPatchError `missing` when the path is not there."""
    con, key = _find(doc, path)
    if con is None:
        raise JSONPatchError(f"{missing}: {_MISSING_VALUE}")
    return con, key


def _apply_one(doc: Any, op: dict[str, Any]) -> Any:
    kind = op.get("op")
    kind = kind if isinstance(kind, str) else "unknown"
    value = copy.deepcopy(op.get("value"))
    if kind == "add":
        path = _string_field(op, "path", "add")
        con, key = _found(doc, path, f'add operation does not apply: doc is missing path: "{path}"')
        try:
            con.add(key, value)
        except (JSONPatchError, ValueError) as exc:
            raise _wrap(f"error in add for path: '{path}'", exc) from None
        return doc
    if kind == "remove":
        path = _string_field(op, "path", "remove")
        con, key = _found(
            doc, path, f'remove operation does not apply: doc is missing path: "{path}"'
        )
        try:
            con.remove(key)
        except (JSONPatchError, ValueError) as exc:
            raise _wrap(f"error in remove for path: '{path}'", exc) from None
        return doc
    if kind == "replace":
        path = _string_field(op, "path", "replace")
        if path == "":
            if not isinstance(value, dict | list):
                raise JSONPatchError("replace operation value must be object or array")
            return value
        con, key = _found(
            doc, path, f"replace operation does not apply: doc is missing path: {path}"
        )
        try:
            con.get(key)
        except (JSONPatchError, ValueError):
            raise JSONPatchError(
                f"replace operation does not apply: doc is missing key: {path}: {_MISSING_VALUE}"
            ) from None
        # v4 quirk: a missing object member is not an error, it is created.
        try:
            con.set(key, value)
        except (JSONPatchError, ValueError) as exc:
            raise _wrap(f"error in remove for path: '{path}'", exc) from None
        return doc
    if kind in ("move", "copy"):
        source = _string_field(op, "from", kind)
        con, key = _found(
            doc, source, f"{kind} operation does not apply: doc is missing from path: {source}"
        )
        try:
            moved = con.get(key)
        except (JSONPatchError, ValueError) as exc:
            label = (
                f"error in move for path: '{key}'"
                if kind == "move"
                else f"error in copy for from: '{source}'"
            )
            raise _wrap(label, exc) from None
        if kind == "move":
            try:
                con.remove(key)
            except (JSONPatchError, ValueError) as exc:
                raise _wrap(f"error in move for path: '{key}'", exc) from None
        else:
            moved = copy.deepcopy(moved)
        path = _string_field(op, "path", kind)
        con, key = _found(
            doc, path, f"{kind} operation does not apply: doc is missing destination path: {path}"
        )
        try:
            con.add(key, moved)
        except (JSONPatchError, ValueError) as exc:
            label = (
                f"error in move for path: '{path}'"
                if kind == "move"
                else "error while adding value during copy"
            )
            raise _wrap(label, exc) from None
        return doc
    if kind == "test":
        path = _string_field(op, "path", "test")
        if path == "":
            if _json_equal(doc, value):
                return doc
            raise PatchTestFailed(f"testing value {path} failed: test failed")
        con, key = _found(doc, path, f"test operation does not apply: is missing path: {path}")
        try:
            current = con.get(key)
        except (JSONPatchError, ValueError) as exc:
            raise _wrap(f"error in test for path: '{path}'", exc) from None
        if current is None:
            if value is None:
                return doc
            raise PatchTestFailed(f"testing value {path} failed: test failed")
        if value is not None and _json_equal(current, value):
            return doc
        raise PatchTestFailed(f"testing value {path} failed: test failed")
    raise JSONPatchError(f"Unexpected kind: {kind}")


def apply_patch(document: Any, operations: list[dict[str, Any]]) -> Any:
    """Apply operations in order to a copy of `document`; raises JSONPatchError on failure."""
    if not isinstance(operations, list):
        raise JSONPatchError("a JSON patch must be a list of operations")
    doc = copy.deepcopy(document)
    for op in operations:
        if not isinstance(op, dict):
            raise JSONPatchError(f"Unexpected kind: {json.dumps(op, default=str)}")
        doc = _apply_one(doc, op)
    return doc


def diff_patch(before: Any, after: Any, path: str = "") -> list[dict[str, Any]]:
    """A JSON Patch that turns `before` into `after` (maps member-wise, lists whole or per item)."""
    if before is after:
        return []  # the usual case (nothing mutated): no need to compare the whole object
    if _json_equal(before, after) and type(before) is type(after):
        return []
    if isinstance(before, dict) and isinstance(after, dict):
        ops: list[dict[str, Any]] = []
        for key in before:
            if key not in after:
                ops.append({"op": "remove", "path": f"{path}/{escape_key(str(key))}"})
        for key, value in after.items():
            child = f"{path}/{escape_key(str(key))}"
            if key not in before:
                ops.append({"op": "add", "path": child, "value": copy.deepcopy(value)})
            else:
                ops.extend(diff_patch(before[key], value, child))
        return ops
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        ops = []
        for index, (old, new) in enumerate(zip(before, after, strict=True)):
            ops.extend(diff_patch(old, new, f"{path}/{index}"))
        return ops
    if path == "":
        return [{"op": "replace", "path": "", "value": copy.deepcopy(after)}]
    return [{"op": "replace", "path": path, "value": copy.deepcopy(after)}]
