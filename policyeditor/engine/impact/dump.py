"""Read a cluster dump as a stream of objects, in bounded memory, whatever its size.

A dump is what `kubectl get ... -A -o yaml|json` prints (one `List` whose `items` are the objects),
multi-document YAML, a JSON array or concatenated JSON values, optionally gzipped. The reader never
holds more than one object at a time: JSON goes value by value through the standard library's C
decoder (json_text.py), YAML through PyYAML's event parser and a small builder that turns the events
of one object into a dict. A `List`'s items stream out one by one even though kubectl writes `items`
before `kind`.

YAML aliases are refused (kubectl never writes them; refusing them rules out alias bombs), plain
scalars resolve as kubectl's go-yaml resolves them (an unquoted 12:30 is a string, timestamps stay
strings: sigs.k8s.io/yaml's YAMLToJSON), managedFields are dropped.
"""

from __future__ import annotations

import gzip
import io
import zlib
from collections.abc import Iterator
from typing import IO, Any

import yaml

from policyeditor.engine.impact import limits
from policyeditor.engine.impact.json_text import json_objects
from policyeditor.engine.impact.limits import MAX_DUMP_BYTES, MAX_OBJECTS, DumpError, check_shape
from policyeditor.engine.manifests.goyaml import STR, go_scalar, key_text, plain_tag
from policyeditor.engine.manifests.jsontext import unstorable

__all__ = [
    "MAX_DUMP_BYTES",
    "MAX_OBJECTS",
    "DumpError",
    "Weighed",
    "iter_objects",
    "iter_weighed",
    "namespaces_of",
    "open_dump",
]

GZIP_MAGIC = b"\x1f\x8b"
# What a YAML value weighs besides its text: about the characters of indentation, quotes and
# punctuation around a value in kubectl's YAML.
YAML_CHARS_PER_VALUE = 8
# An object and its weight (iter_weighed).
Weighed = tuple[dict[str, Any], int]
# The loader's parser alone is used (libyaml's when PyYAML has it): scalars resolve as go-yaml's.
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_MAP = object()


class _Limited(io.RawIOBase):
    """A binary stream that refuses to give more than `limit` bytes (None: no limit)."""

    def __init__(self, source: Any, limit: int | None) -> None:
        self._source, self._limit, self.read_bytes = source, limit, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self._source.read(len(buffer))
        self.read_bytes += len(data)
        if self._limit is not None and self.read_bytes > self._limit:
            raise DumpError(f"the dump is larger than {self._limit // (1024 * 1024)} MiB")
        buffer[: len(data)] = data
        return len(data)


def open_dump(raw: IO[bytes], *, limit: int = MAX_DUMP_BYTES) -> io.BufferedReader:
    """The dump's bytes, gunzipped when they start with gzip's magic, refused past `limit`."""
    buffered = io.BufferedReader(_Limited(raw, None), 1 << 16)
    if buffered.peek(2)[:2] == GZIP_MAGIC:
        return io.BufferedReader(_Limited(gzip.GzipFile(fileobj=buffered), limit), 1 << 16)
    return io.BufferedReader(_Limited(buffered, limit), 1 << 16)


def _yaml_scalar(event: yaml.ScalarEvent) -> Any:
    """A scalar's value as kubectl and the API server read it (go-yaml v2), not as YAML 1.1 says."""
    tag = event.tag
    if tag is None or tag == "!":
        if not event.implicit[0]:
            return event.value  # quoted or "!"-tagged: a string
        tag = plain_tag(event.value)
        if tag == STR:
            return event.value
    try:
        return go_scalar(tag, event.value)
    except ValueError as error:
        raise DumpError(f"{error}{_where(event)}") from None


def _yaml_events(stream: io.BufferedReader) -> Iterator[tuple[str, Any]]:
    """Events (start_map, map_key, scalar... as ijson names them) from PyYAML's parser."""
    loader = _Loader(stream)
    # Per open collection: True when the next node of a mapping is a key, False for its value,
    # None in a sequence.
    keys: list[bool | None] = []
    try:
        while True:
            event = loader.get_event()
            if event is None or isinstance(event, yaml.StreamEndEvent):
                return
            kind = type(event)
            if kind is yaml.ScalarEvent:
                if keys and keys[-1]:
                    keys[-1] = False
                    yield "map_key", _yaml_key(event)
                    continue
                if keys and keys[-1] is False:
                    keys[-1] = True
                yield "scalar", _yaml_scalar(event)
            elif kind is yaml.MappingStartEvent or kind is yaml.SequenceStartEvent:
                if keys and keys[-1]:
                    raise DumpError(f"a mapping key must be a string{_where(event)}")
                if keys and keys[-1] is False:
                    keys[-1] = True
                mapping = kind is yaml.MappingStartEvent
                keys.append(True if mapping else None)
                yield ("start_map" if mapping else "start_array"), None
            elif kind is yaml.MappingEndEvent:
                keys.pop()
                yield "end_map", None
            elif kind is yaml.SequenceEndEvent:
                keys.pop()
                yield "end_array", None
            elif kind is yaml.AliasEvent:
                raise DumpError(f"YAML aliases (*name) are not allowed in a dump{_where(event)}")
    except yaml.reader.ReaderError as error:
        raise DumpError(f"the dump is not UTF-8 text: {error}") from None
    except yaml.MarkedYAMLError as error:
        raise DumpError(_yaml_problem(error)) from None
    except yaml.YAMLError as error:
        raise DumpError(f"invalid YAML: {error}") from None
    finally:
        loader.dispose()


def _yaml_key(event: yaml.ScalarEvent) -> str:
    """A mapping key as text (`1.0:` is "1", `true:` "true"), as sigs.k8s.io/yaml converts keys."""
    return key_text(_yaml_scalar(event))


def _yaml_problem(error: yaml.MarkedYAMLError) -> str:
    """PyYAML's error on one line, with where it is (its own text spans four), as JSON's says it."""
    problem = error.problem or error.context or "invalid YAML"
    if error.problem and error.context:
        problem = f"{error.problem} ({error.context})"
    mark = error.problem_mark or error.context_mark
    if mark is None:
        return f"invalid YAML: {problem}"
    return f"invalid YAML at line {mark.line + 1}, column {mark.column + 1}: {problem}"


def _where(event: Any) -> str:
    mark = getattr(event, "start_mark", None)
    return f" (line {mark.line + 1})" if mark is not None else ""


_INF = float("inf")


def _odd(value: Any) -> bool:
    """Whether a scalar might be one JSON cannot store (then unstorable() looks for it)."""
    kind = value.__class__
    if kind is str:
        return not value.isascii()  # a lone surrogate (JSON "\ud800") is not ASCII
    if kind is float:
        return bool(value != value or value == _INF or value == -_INF)
    return not (kind is int or kind is bool or value is None)


def _build(event: str, value: Any, events: Iterator[tuple[str, Any]]) -> tuple[Any, bool, int]:
    """One whole value from its first event on, without recursion, within the node limits.

    Also whether it holds a value that might not be storable as JSON (checked by the caller), and
    its weight (about the characters of its text: its strings, and a few per value).
    """
    if event == "scalar":
        return value, _odd(value), YAML_CHARS_PER_VALUE + _chars(value)
    if event == "start_map":
        root: Any = {}
    elif event == "start_array":
        root = []
    else:
        raise DumpError("the dump ends in the middle of an object")
    # The containers above `top`, each with the key `top` sits at in it.
    parents: list[tuple[Any, Any]] = []
    top, key, nodes, odd, chars = root, None, 1, False, 0
    node_limit, depth_limit = limits.MAX_OBJECT_NODES, limits.MAX_DEPTH - 1
    for event, value in events:
        if event == "map_key":
            key = value
            chars += len(value)
            if not value.isascii():
                odd = True
            continue
        if event == "end_map" or event == "end_array":
            if not parents:
                return root, odd, nodes * YAML_CHARS_PER_VALUE + chars
            top, key = parents.pop()
            continue
        nodes += 1
        if nodes > node_limit:
            raise DumpError(f"an object of the dump has more than {node_limit} values")
        if event == "start_map" or event == "start_array":
            if key == "managedFields" and len(parents) == 1 and parents[0][1] == "metadata":
                _skip(events)  # dropped anyway, and often half of what kubectl prints
                nodes -= 1
                continue
            child: Any = {} if event == "start_map" else []
        else:
            if not odd and _odd(value):
                odd = True
            if value.__class__ is str:
                chars += len(value)
            if top.__class__ is dict:
                top[key] = value
            else:
                top.append(value)
            continue
        if top.__class__ is dict:
            top[key] = child
        else:
            top.append(child)
        if len(parents) >= depth_limit:
            raise DumpError(f"an object of the dump is nested deeper than {depth_limit + 1} levels")
        parents.append((top, key))
        top, key = child, None
    raise DumpError("the dump ends in the middle of an object (is it truncated?)")


def _chars(value: Any) -> int:
    return len(value) if value.__class__ is str else 0


def _skip(events: Iterator[tuple[str, Any]]) -> None:
    """Read past the rest of a mapping or list whose start was just read, building nothing."""
    depth = 1
    for event, _ in events:
        if event == "start_map" or event == "start_array":
            depth += 1
        elif event == "end_map" or event == "end_array":
            depth -= 1
            if not depth:
                return
    raise DumpError("the dump ends in the middle of an object (is it truncated?)")


def _accept(value: Any, count: list[int], odd: bool, checked: bool, weight: int) -> list[Weighed]:
    """The objects of one item: itself, or a nested List's items; checked and cleaned.

    `odd` False says the reader found no value JSON might not store: the full check is skipped.
    `checked` False says the depth and node limits are still to check. The item's weight goes
    with its first object.
    """
    if value.__class__ is dict and not _is_list(value):
        return [(_clean(value, count, odd, checked), weight)]  # the usual case, without the walk
    found: list[Weighed] = []
    stack = [iter((value,))]
    while stack:
        item = next(stack[-1], _MAP)
        if item is _MAP:
            stack.pop()
        elif item is None:
            continue
        elif not isinstance(item, dict):
            raise DumpError(f"expected Kubernetes objects, found {type(item).__name__}")
        elif _is_list(item):
            if len(stack) > limits.MAX_LIST_NESTING:
                raise DumpError("Lists nested too deeply")
            stack.append(iter(item["items"]))
        else:
            found.append((_clean(item, count, odd, checked), 0 if found else weight))
    return found


def _is_list(item: dict[str, Any]) -> bool:
    kind = item.get("kind")
    return isinstance(kind, str) and kind.endswith("List") and isinstance(item.get("items"), list)


def _clean(item: dict[str, Any], count: list[int], odd: bool, checked: bool) -> dict[str, Any]:
    """One object, checked, without its managedFields; counted."""
    if not isinstance(item.get("kind"), str) or not isinstance(item.get("apiVersion"), str):
        raise DumpError(f"object {count[0] + 1} of the dump has no apiVersion and kind")
    metadata = item.get("metadata")
    if isinstance(metadata, dict):
        metadata.pop("managedFields", None)
    if not checked:
        check_shape(item)
    # Lone surrogates (JSON "\ud800"): a run stores the objects as JSON, which cannot hold
    # them. (YAML's .nan, .inf and !!binary are refused as they are read.)
    problem = unstorable(item) if odd else None
    if problem:
        raise DumpError(
            f"object {count[0] + 1} of the dump holds a value JSON cannot store, at {problem}"
        )
    count[0] += 1
    if count[0] > limits.MAX_OBJECTS:
        raise DumpError(f"the dump has more than {limits.MAX_OBJECTS} objects")
    return item


def _items(events: Iterator[tuple[str, Any]], count: list[int], what: str) -> Iterator[Weighed]:
    """The objects of a list's elements, up to its end."""
    for event, value in events:
        if event == "end_array":
            return
        item, odd, weight = _build(event, value, events)
        yield from _accept(item, count, odd, True, weight)
    raise DumpError(f"the dump ends in the middle of a {what} (is it truncated?)")


def _objects_of(events: Iterator[tuple[str, Any]]) -> Iterator[Weighed]:
    count = [0]
    for event, value in events:
        if event == "start_map":
            # A document: one object, or a List whose items stream out as they are read.
            head: dict[str, Any] = {}
            streamed = odd = False
            weight = 0
            for event, value in events:
                if event == "end_map":
                    break
                key = value
                event, value = next(events, ("eof", None))
                if key == "items" and event == "start_array":
                    streamed = True
                    yield from _items(events, count, "List")
                else:
                    head[key], odd_value, value_weight = _build(event, value, events)
                    odd = odd or odd_value or not key.isascii()
                    weight += len(key) + value_weight
            else:
                raise DumpError("the dump ends in the middle of an object (is it truncated?)")
            kind = head.get("kind")
            if streamed and not (isinstance(kind, str) and kind.endswith("List")):
                raise DumpError(f"a document with items is not a List (kind {kind!r})")
            if not streamed:
                yield from _accept(head, count, odd, True, weight)
        elif event == "start_array":
            yield from _items(events, count, "list")
        elif value is not None:
            raise DumpError(f"expected Kubernetes objects, found {type(value).__name__}")


def iter_objects(stream: io.BufferedReader) -> Iterator[dict[str, Any]]:
    """Every object of a dump, one at a time (stream as returned by open_dump)."""
    for obj, _ in iter_weighed(stream):
        yield obj


def iter_weighed(stream: io.BufferedReader) -> Iterator[Weighed]:
    """Every object of a dump with its weight: about the characters of text it was read from.

    What a caller holding many objects at once bounds its batches by (their number alone
    does not bound their memory: one object may be ten thousand times the size of another).
    """
    try:
        text = stream.peek(64)[:64].lstrip(b"\xef\xbb\xbf \t\r\n")
        if text[:1] in (b"{", b"["):
            count = [0]
            yield from json_objects(
                stream,
                lambda value, odd, checked, weight: _accept(value, count, odd, checked, weight),
            )
        else:
            yield from _objects_of(_yaml_events(stream))
    except RecursionError:
        raise DumpError("the dump is nested too deeply") from None
    except UnicodeDecodeError as error:
        raise DumpError(f"the dump is not UTF-8 text: {error}") from None
    except (OSError, zlib.error) as error:  # gzip's own errors (a corrupt archive)
        raise DumpError(f"cannot read the dump: {error}") from None
    except EOFError:
        raise DumpError("the gzip archive is truncated") from None


# A namespaces file without one (an empty file, a failed `kubectl get ns > file`) would leave every
# namespaceSelector unmatched and quietly skip what it selects: refused, as an empty dump is.
NO_NAMESPACES = (
    "it holds no Namespace objects (give the output of `kubectl get namespaces -o yaml`, "
    "or leave it out to use the Namespace objects of the dump)"
)


def namespaces_of(objects: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Namespace objects by name."""
    found = {}
    for obj in objects:
        if obj.get("kind") == "Namespace" and obj.get("apiVersion") == "v1":
            name = (obj.get("metadata") or {}).get("name")
            if isinstance(name, str):
                found[name] = obj
    return found
