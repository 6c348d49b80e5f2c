"""Safe loading and dumping of YAML/JSON manifests, with the limits an API server would apply.

Loading uses PyYAML's event parser (libyaml's CParser when available) with our own composer and
constructor: the composer counts what alias expansion would add *while composing*, so a
"billion laughs" document is refused before anything is expanded, and the constructor builds
plain JSON-shaped values (dict/list/str/int/float/bool/None) with no shared sub-objects, string
keys, no timestamps and no Python or binary tags. JSON input goes through the json module first,
because YAML 1.1 mishandles some JSON (surrogate-pair escapes).
"""

from __future__ import annotations

import json
import math
import os
import re
from typing import Any

import yaml
from yaml.composer import Composer
from yaml.events import (
    AliasEvent,
    MappingStartEvent,
    SequenceStartEvent,
    StreamEndEvent,
)
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from yaml.resolver import Resolver

from .errors import InputError

MAX_BYTES = 3 * 1024 * 1024  # the API server's request body limit
MAX_DEPTH = 100  # nesting of collections; policies need a handful
MAX_DOCUMENTS = 1000
MAX_ALIASES = 10_000  # alias uses per input
MAX_ALIAS_NODES = 100_000  # nodes that alias expansion may add per input
MAX_ALIAS_CHARS = MAX_BYTES  # scalar characters that alias expansion may add per input
MAX_NODES = (
    100_000  # composed nodes per input: bounds the time a 3 MiB input takes (policies need ~100s)
)

__all__ = [
    "MAX_ALIAS_CHARS",
    "MAX_ALIAS_NODES",
    "MAX_ALIASES",
    "MAX_BYTES",
    "MAX_DEPTH",
    "MAX_DOCUMENTS",
    "MAX_NODES",
    "ManifestError",
    "dump_documents",
    "load_documents",
    "load_file",
]

_STR = "tag:yaml.org,2002:str"
_INT = "tag:yaml.org,2002:int"
_FLOAT = "tag:yaml.org,2002:float"
_BOOL = "tag:yaml.org,2002:bool"
_NULL = "tag:yaml.org,2002:null"
_SEQ = "tag:yaml.org,2002:seq"
_MAP = "tag:yaml.org,2002:map"
_MERGE = "tag:yaml.org,2002:merge"
_SCALAR_TAGS = {_STR, _INT, _FLOAT, _BOOL, _NULL}


class ManifestError(InputError):
    """An InputError that also says where: source, 1-based document, line and column."""

    def __init__(
        self,
        problem: str,
        *,
        source: str = "<input>",
        document: int | None = None,
        line: int | None = None,
        column: int | None = None,
    ) -> None:
        self.problem = problem
        self.source = source
        self.document = document
        self.line = line
        self.column = column
        where = [source]
        if document is not None:
            where.append(f"document {document}")
        if line is not None:
            where.append(f"line {line}" + (f", column {column}" if column is not None else ""))
        super().__init__(": ".join([*where, problem]))


class _LoadResolver(Resolver):
    """YAML 1.1 implicit types minus timestamps: Kubernetes (sigs.k8s.io/yaml) keeps them strings."""

    def resolve(self, kind: type, value: Any, implicit: Any) -> str:
        # Resolution is the hot spot of loading; manifests repeat their scalars a lot.
        if kind is not ScalarNode or not isinstance(value, str) or len(value) > 64:
            return Resolver.resolve(self, kind, value, implicit)
        cache = self.__dict__.setdefault("_tag_cache", {})
        key = (value, implicit)
        tag = cache.get(key)
        if tag is None:
            tag = Resolver.resolve(self, kind, value, implicit)
            if len(cache) < 10_000:
                cache[key] = tag
        return tag


_LoadResolver.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in Resolver.yaml_implicit_resolvers.items()
}


class _Limited(Exception):
    """Internal: a limit was hit at a node (carries the mark)."""

    def __init__(self, problem: str, mark: Any) -> None:
        super().__init__(problem)
        self.problem = problem
        self.mark = mark


class _LimitedComposer(Composer):
    """PyYAML's composer plus depth, alias-count and alias-expansion accounting."""

    def __init__(self) -> None:
        Composer.__init__(self)
        self.depth = 0
        self.documents = 0
        self.alias_uses = 0
        self.alias_nodes = 0
        self.alias_chars = 0
        self.nodes = 0

    def compose_document(self) -> Node:
        self.documents += 1
        if self.documents > MAX_DOCUMENTS:
            raise _Limited(
                f"too many documents (more than {MAX_DOCUMENTS})", self.peek_event().start_mark
            )
        return Composer.compose_document(self)

    def compose_node(self, parent: Node | None, index: Any) -> Node:
        event = self.peek_event()
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise _Limited(f"too many nodes (more than {MAX_NODES})", event.start_mark)
        if isinstance(event, AliasEvent):
            node = Composer.compose_node(self, parent, index)
            size = getattr(node, "_size", None)
            if size is None:
                # The anchor is still being composed: the alias points into itself.
                raise _Limited(f"recursive alias *{event.anchor}", event.start_mark)
            self.alias_uses += 1
            self.alias_nodes += size[0]
            self.alias_chars += size[1]
            if self.alias_uses > MAX_ALIASES:
                raise _Limited(f"too many aliases (more than {MAX_ALIASES})", event.start_mark)
            if self.alias_nodes > MAX_ALIAS_NODES or self.alias_chars > MAX_ALIAS_CHARS:
                raise _Limited(
                    "alias expansion too large (more than "
                    f"{MAX_ALIAS_NODES} nodes or {MAX_ALIAS_CHARS} characters): "
                    "refusing a possible billion-laughs document",
                    event.start_mark,
                )
            if self.depth + size[2] > MAX_DEPTH:
                raise _Limited(f"nesting deeper than {MAX_DEPTH} levels", event.start_mark)
            return node
        if isinstance(event, SequenceStartEvent | MappingStartEvent):
            self.depth += 1
            if self.depth > MAX_DEPTH:
                raise _Limited(f"nesting deeper than {MAX_DEPTH} levels", event.start_mark)
            node = Composer.compose_node(self, parent, index)
            self.depth -= 1
        else:
            node = Composer.compose_node(self, parent, index)
        node._size = _node_size(node)
        return node


def _node_size(node: Node) -> tuple[int, int, int]:
    """(nodes, scalar characters, depth) of a node once expanded; children are already sized."""
    if isinstance(node, ScalarNode):
        return (1, len(node.value), 0)
    children: list[Node] = []
    if isinstance(node, SequenceNode):
        children = node.value
    elif isinstance(node, MappingNode):
        for key, value in node.value:
            children.append(key)
            children.append(value)
    nodes, chars, depth = 1, 0, 0
    for child in children:
        size = getattr(child, "_size", None) or (1, 0, 0)
        nodes += size[0]
        chars += size[1]
        depth = max(depth, size[2])
    return (nodes, chars, depth + 1)


try:  # libyaml parses much faster; our Python composer sits on its events either way
    from yaml._yaml import CParser as _Parser

    class _Loader(_LimitedComposer, _Parser, _LoadResolver):
        """CParser events, limited composer, timestamp-free resolver."""

        def __init__(self, stream: str) -> None:
            _Parser.__init__(self, stream)
            _LimitedComposer.__init__(self)
            _LoadResolver.__init__(self)

except ImportError:  # pragma: no cover - depends on how PyYAML was built
    from yaml.parser import Parser as _PyParser
    from yaml.reader import Reader
    from yaml.scanner import Scanner

    class _Loader(Reader, Scanner, _PyParser, _LimitedComposer, _LoadResolver):  # type: ignore[no-redef]
        """Pure-Python events, limited composer, timestamp-free resolver."""

        def __init__(self, stream: str) -> None:
            Reader.__init__(self, stream)
            Scanner.__init__(self)
            _PyParser.__init__(self)
            _LimitedComposer.__init__(self)
            _LoadResolver.__init__(self)


_SCALARS = yaml.SafeLoader.__new__(yaml.SafeLoader)  # only its scalar constructors are used


def _construct(node: Node) -> Any:
    """A fresh plain value for a node (aliases are copied, never shared)."""
    if isinstance(node, ScalarNode):
        return _construct_scalar(node)
    if isinstance(node, SequenceNode):
        if node.tag != _SEQ:
            raise _Limited(f"unsupported tag {node.tag}", node.start_mark)
        return [_construct(child) for child in node.value]
    if isinstance(node, MappingNode):
        if node.tag != _MAP:
            raise _Limited(f"unsupported tag {node.tag}", node.start_mark)
        return _construct_mapping(node)
    raise _Limited("unsupported node", node.start_mark)  # pragma: no cover


def _construct_scalar(node: ScalarNode) -> Any:
    tag = node.tag
    if tag not in _SCALAR_TAGS:
        raise _Limited(f"unsupported tag {tag}", node.start_mark)
    if tag == _STR:
        return node.value
    try:
        if tag == _INT:
            return _SCALARS.construct_yaml_int(node)
        if tag == _BOOL:
            return _SCALARS.construct_yaml_bool(node)
        if tag == _NULL:
            return None
        value = _SCALARS.construct_yaml_float(node)
    except (ValueError, KeyError) as error:
        raise _Limited(
            f"invalid {tag.rsplit(':', 1)[-1]} value {node.value!r}", node.start_mark
        ) from error
    if not math.isfinite(value):
        # JSON (and so the API server) cannot carry it: json.Marshal fails on it.
        raise _Limited(f"unsupported value {node.value!r}: not a finite number", node.start_mark)
    return value


def _key(node: Node) -> str:
    """Mapping keys become strings, as sigs.k8s.io/yaml converts them for JSON."""
    if not isinstance(node, ScalarNode):
        raise _Limited("mapping keys must be scalars", node.start_mark)
    value = _construct_scalar(node)
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    return str(value)


def _construct_mapping(node: MappingNode) -> dict[str, Any]:
    result: dict[str, Any] = {}
    merged: list[dict[str, Any]] = []
    for key_node, value_node in node.value:
        if key_node.tag == _MERGE:
            sources = value_node.value if isinstance(value_node, SequenceNode) else [value_node]
            for source in sources:
                if not isinstance(source, MappingNode):
                    raise _Limited(
                        "merge key << needs a mapping or a list of mappings", source.start_mark
                    )
                merged.append(_construct_mapping(source))
            continue
        key = _key(key_node)
        if key in result:
            raise _Limited(f'key "{key}" already set in map', key_node.start_mark)
        result[key] = _construct(value_node)
    # Explicit keys win over merged ones, and earlier merge sources over later ones (YAML merge spec).
    for source in merged:
        for key, value in source.items():
            result.setdefault(key, value)
    return result


def _decode(text: str | bytes, source: str) -> str:
    """Size check and UTF-8 decoding with a clear message."""
    if isinstance(text, bytes | bytearray | memoryview):
        data = bytes(text)
        if len(data) > MAX_BYTES:
            raise ManifestError(_too_large(len(data)), source=source)
        try:
            return data.decode("utf-8-sig")
        except UnicodeDecodeError as error:
            raise ManifestError(
                f"not valid UTF-8 (byte {error.start}: {data[error.start : error.start + 1]!r})",
                source=source,
            ) from None
    if not isinstance(text, str):
        raise ManifestError(f"expected text, got {type(text).__name__}", source=source)
    if len(text) > MAX_BYTES:  # characters never outnumber bytes
        raise ManifestError(_too_large(len(text)), source=source)
    try:
        size = len(text.encode("utf-8"))
    except UnicodeEncodeError as error:
        raise ManifestError(f"invalid character at offset {error.start}", source=source) from None
    if size > MAX_BYTES:
        raise ManifestError(_too_large(size), source=source)
    return text.removeprefix("\ufeff")


def _too_large(size: int) -> str:
    return (
        f"input too large: {size} bytes (the API server accepts at most {MAX_BYTES} bytes, 3 MiB)"
    )


def _load_yaml(text: str, source: str) -> list[Any]:
    loader = None
    documents: list[Any] = []
    try:
        loader = _Loader(text)
        loader.get_event()  # StreamStartEvent
        while not loader.check_event(StreamEndEvent):
            node = loader.compose_document()
            documents.append(_construct(node) if node is not None else None)
        return documents
    except _Limited as error:
        raise _at(error.problem, error.mark, source, loader.documents) from None
    except yaml.MarkedYAMLError as error:
        problem = error.problem or error.context or "invalid YAML"
        if error.context and error.problem:
            problem = f"{error.problem} ({error.context})"
        document = max(loader.documents, 1) if loader is not None else 1
        raise _at(problem, error.problem_mark, source, document) from None
    except yaml.reader.ReaderError as error:
        line = text.count("\n", 0, error.position) + 1
        column = error.position - (text.rfind("\n", 0, error.position) + 1) + 1
        problem = f"unacceptable character #x{error.character:04x}: {error.reason}"
        document = loader.documents if loader is not None else 0
        raise ManifestError(
            problem, source=source, document=document or None, line=line, column=column
        ) from None
    except yaml.YAMLError as error:
        raise ManifestError(f"invalid YAML: {error}", source=source) from None
    except RecursionError:
        raise ManifestError(f"nesting deeper than {MAX_DEPTH} levels", source=source) from None
    finally:
        dispose = getattr(loader, "dispose", None)
        if dispose is not None:
            dispose()


def _at(problem: str, mark: Any, source: str, document: int) -> ManifestError:
    line = mark.line + 1 if mark is not None else None
    column = mark.column + 1 if mark is not None else None
    return ManifestError(
        problem, source=source, document=document or None, line=line, column=column
    )


_JSON_START = re.compile(r"\A\s*[\[{]")


def _load_json(text: str, source: str) -> list[Any]:
    """A stream of JSON values (kubectl accepts concatenated objects)."""
    decoder = json.JSONDecoder(object_pairs_hook=_json_object, parse_constant=_json_constant)
    documents: list[Any] = []
    index = 0
    end = len(text)
    while True:
        while index < end and text[index] in " \t\r\n":
            index += 1
        if index >= end:
            return documents
        try:
            value, index = decoder.raw_decode(text, index)
        except json.JSONDecodeError as error:
            raise ManifestError(
                error.msg,
                source=source,
                document=len(documents) + 1,
                line=error.lineno,
                column=error.colno,
            ) from None
        except RecursionError:
            raise ManifestError(
                f"nesting deeper than {MAX_DEPTH} levels",
                source=source,
                document=len(documents) + 1,
            ) from None
        except ValueError as error:  # duplicate keys, NaN/Infinity
            raise ManifestError(str(error), source=source, document=len(documents) + 1) from None
        if _depth_exceeds(value, MAX_DEPTH):
            raise ManifestError(
                f"nesting deeper than {MAX_DEPTH} levels",
                source=source,
                document=len(documents) + 1,
            )
        documents.append(value)
        if len(documents) > MAX_DOCUMENTS:
            raise ManifestError(f"too many documents (more than {MAX_DOCUMENTS})", source=source)


def _json_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f'duplicate field "{key}"')
        result[key] = value
    return result


def _json_constant(name: str) -> Any:
    raise ValueError(f"unsupported value {name}: not a finite number")


def _depth_exceeds(value: Any, limit: int) -> bool:
    """Whether collections nest deeper than `limit` (iterative: input may be deep)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = (
            item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        )
        if children is None:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def load_documents(text: str | bytes, *, source: str = "<input>") -> list[dict]:
    """Parse YAML or JSON (multi-document) into plain dicts; raise ManifestError (an InputError)."""
    decoded = _decode(text, source)
    raw: list[Any] | None = None
    if _JSON_START.match(decoded):
        try:
            raw = _load_json(decoded, source)
        except ManifestError:
            raw = None  # YAML is a superset: let its parser accept it or say precisely why not
    if raw is None:
        raw = _load_yaml(decoded, source)
    return _flatten(raw, source)


def _flatten(raw: list[Any], source: str) -> list[dict]:
    """Drop empty documents, refuse non-objects, expand `List` kinds into their items."""
    documents: list[dict] = []
    for number, document in enumerate(raw, start=1):
        if document is None:
            continue
        if not isinstance(document, dict):
            raise ManifestError(
                f"expected an object (a mapping), got {_kind_of(document)}",
                source=source,
                document=number,
            )
        kind = document.get("kind")
        items = document.get("items")
        if isinstance(kind, str) and kind.endswith("List") and isinstance(items, list):
            documents.extend(_list_items(document, kind, items, source, number))
        else:
            documents.append(document)
        if len(documents) > MAX_DOCUMENTS:
            raise ManifestError(f"too many documents (more than {MAX_DOCUMENTS})", source=source)
    return documents


def _list_items(document: dict, kind: str, items: list, source: str, number: int) -> list[dict]:
    """Items of a List; typed lists (FooList) may omit apiVersion/kind on items, so fill them in."""
    result = []
    for position, item in enumerate(items):
        if not isinstance(item, dict):
            raise ManifestError(
                f"items[{position}]: expected an object (a mapping), got {_kind_of(item)}",
                source=source,
                document=number,
            )
        if kind != "List":
            if "apiVersion" not in item and "apiVersion" in document:
                item = {"apiVersion": document["apiVersion"], **item}
            if "kind" not in item:
                item = {"apiVersion": item.get("apiVersion"), "kind": kind[: -len("List")], **item}
                if item["apiVersion"] is None:
                    del item["apiVersion"]
        result.append(item)
    return result


def _kind_of(value: Any) -> str:
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    return type(value).__name__


def load_file(path: str | os.PathLike) -> list[dict]:
    """Load a manifest file; the size limit is checked before reading it."""
    source = os.fspath(path)
    try:
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size > MAX_BYTES:
                raise ManifestError(_too_large(size), source=source)
            data = handle.read(MAX_BYTES + 1)  # fstat is 0 for pipes: read one byte past the limit
    except OSError as error:
        raise ManifestError(f"cannot read file: {error.strerror or error}", source=source) from None
    return load_documents(data, source=source)


# ---------------------------------------------------------------- dumping

_TOP_ORDER = ("apiVersion", "kind", "metadata", "spec")
# yaml.v2 (kubectl) also reads these as booleans; PyYAML does not, so quote them ourselves.
_GO_BOOLS = {"y", "Y", "n", "N"}
_ESCAPE_ONLY = ("\r", "\x85", "\u2028", "\u2029", "\ufeff")


class _Dumper(yaml.SafeDumper):
    """SafeDumper with literal blocks for multi-line strings and quoting of type look-alikes."""

    def ignore_aliases(self, data: Any) -> bool:
        return True  # kubectl-ready output never uses anchors


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    if any(char in value for char in _ESCAPE_ONLY):
        # PyYAML's single-quoted and block styles mangle these line breaks; escapes are exact.
        return dumper.represent_scalar(_STR, value, style='"')
    if "\n" in value:
        return dumper.represent_scalar(_STR, value, style="|")
    if value in _GO_BOOLS:
        return dumper.represent_scalar(_STR, value, style='"')
    return dumper.represent_scalar(_STR, value)


_Dumper.add_representer(str, _represent_str)


def _prepare(value: Any, path: str) -> Any:
    """Check the value is JSON-shaped and return it with tuples as lists (for the safe dumper)."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InputError(f"{path or '<root>'}: cannot dump {value!r}: not a finite number")
        return value
    if isinstance(value, dict):
        result = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise InputError(
                    f"{path or '<root>'}: cannot dump key {key!r}: keys must be strings"
                )
            result[key] = _prepare(item, f"{path}.{key}" if path else key)
        return result
    if isinstance(value, list | tuple):
        return [_prepare(item, f"{path}[{i}]") for i, item in enumerate(value)]
    raise InputError(f"{path or '<root>'}: cannot dump a {type(value).__name__}")


def _ordered(document: dict) -> dict:
    """Top-level fields in Kubernetes order: apiVersion, kind, metadata, spec, then the rest."""
    head = {key: document[key] for key in _TOP_ORDER if key in document}
    return {**head, **{key: value for key, value in document.items() if key not in head}}


def dump_documents(docs: list[dict]) -> str:
    """Multi-document, block-style, kubectl-ready YAML; load_documents(dump_documents(d)) == d."""
    parts = []
    for document in docs:
        value = _prepare(document, "")
        if isinstance(value, dict):
            value = _ordered(value)
        parts.append(
            yaml.dump(
                value,
                Dumper=_Dumper,
                default_flow_style=False,
                sort_keys=False,
                allow_unicode=True,
                width=1 << 30,  # never fold long CEL expressions
            )
        )
    return "---\n".join(parts)
