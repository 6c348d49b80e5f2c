"""The YAML half of manifest loading: a limited composer and a plain-value constructor.

PyYAML's event parser (libyaml's CParser when available) feeds our own composer, which counts
what alias expansion would add *while composing* (so a "billion laughs" document is refused
before anything is expanded) and enforces depth and node limits; the constructor then builds
plain JSON-shaped values (dict/list/str/int/float/bool/None) with no shared sub-objects, string
keys, no timestamps and no Python or binary tags. Plain scalars resolve as go-yaml v2 resolves
them (kubectl and the API server read YAML with it), not by PyYAML's YAML 1.1 rules.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import yaml
from yaml.composer import Composer
from yaml.events import (
    AliasEvent,
    Event,
    MappingStartEvent,
    SequenceStartEvent,
    StreamEndEvent,
)
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from yaml.resolver import Resolver

from policyeditor.engine.errors import InputError
from policyeditor.engine.manifests.goyaml import (
    MAP,
    MERGE,
    SEQ,
    STR,
    go_scalar,
    key_text,
    plain_tag,
)

MAX_BYTES = 3 * 1024 * 1024  # the API server's request body limit
MAX_DEPTH = 100  # nesting of collections; policies need a handful
MAX_DOCUMENTS = 1000
MAX_ALIASES = 10_000  # alias uses per input
MAX_ALIAS_NODES = 100_000  # nodes that alias expansion may add per input
MAX_ALIAS_CHARS = MAX_BYTES  # scalar characters that alias expansion may add per input
MAX_NODES = (
    100_000  # composed nodes per input: bounds the time a 3 MiB input takes (policies need ~100s)
)


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


class LoadResolver(Resolver):
    """Plain scalars resolve as go-yaml v2 resolves them; timestamps stay strings, as in Kubernetes."""

    def resolve(self, kind: type, value: Any, implicit: Any) -> str:
        """go-yaml's resolution for scalars (quoted ones are strings), PyYAML's for collections."""
        if kind is not ScalarNode:
            if kind is MappingNode and not self.yaml_path_resolvers:
                return MAP  # what Resolver.resolve answers, without its call
            # types-PyYAML leaves BaseResolver.resolve unannotated; it returns the tag, a str.
            return Resolver.resolve(self, kind, value, implicit)  # type: ignore[no-untyped-call,no-any-return]
        if not implicit[0]:
            return STR
        return plain_tag(value)


class _Limited(Exception):
    """Internal: a limit was hit at a node (carries the mark)."""

    def __init__(self, problem: str, mark: Any) -> None:
        super().__init__(problem)
        self.problem = problem
        self.mark = mark


class _LimitedComposer(Composer):
    """PyYAML's composer plus depth, alias-count and alias-expansion accounting."""

    # The parser's, which every loader class mixes in with this composer.
    peek_event: Callable[[], Event]

    def __init__(self) -> None:
        Composer.__init__(self)
        self.depth = 0
        self.documents = 0
        self.alias_uses = 0
        self.alias_nodes = 0
        self.alias_chars = 0
        self.nodes = 0

    def compose_document(self) -> Node | None:
        """Count documents before composing one."""
        self.documents += 1
        if self.documents > MAX_DOCUMENTS:
            raise _Limited(
                f"too many documents (more than {MAX_DOCUMENTS})", self.peek_event().start_mark
            )
        return Composer.compose_document(self)

    def compose_node(self, parent: Node | None, index: Any) -> Node | None:
        """Compose a node, enforcing the node, depth and alias limits."""
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
        if node is not None:  # never None in PyYAML, though its signature allows it
            # Node declares no slot for the size: it rides on the node as an extra attribute.
            setattr(node, "_size", _node_size(node))  # noqa: B010
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

    class LimitedLoader(_LimitedComposer, _Parser, LoadResolver):
        """CParser events, limited composer, timestamp-free resolver."""

        def __init__(self, stream: str) -> None:
            _Parser.__init__(self, stream)
            _LimitedComposer.__init__(self)
            LoadResolver.__init__(self)

except ImportError:  # pragma: no cover - depends on how PyYAML was built
    from yaml.parser import Parser as _PyParser
    from yaml.reader import Reader
    from yaml.scanner import Scanner

    # The same class built on PyYAML's pure-Python parser: mypy sees two definitions of one name.
    class LimitedLoader(Reader, Scanner, _PyParser, _LimitedComposer, LoadResolver):  # type: ignore[no-redef]
        """Pure-Python events, limited composer, timestamp-free resolver."""

        def __init__(self, stream: str) -> None:
            Reader.__init__(self, stream)
            Scanner.__init__(self)
            _PyParser.__init__(self)
            _LimitedComposer.__init__(self)
            LoadResolver.__init__(self)


def construct(node: Node) -> Any:
    """A fresh plain value for a node (aliases are copied, never shared)."""
    if isinstance(node, ScalarNode):
        if node.tag == STR:  # most scalars: skip the call
            return node.value
        return _construct_scalar(node)
    if isinstance(node, SequenceNode):
        if node.tag != SEQ:
            raise _Limited(f"unsupported tag {node.tag}", node.start_mark)
        return [construct(child) for child in node.value]
    if isinstance(node, MappingNode):
        if node.tag != MAP:
            raise _Limited(f"unsupported tag {node.tag}", node.start_mark)
        return _construct_mapping(node)
    raise _Limited("unsupported node", node.start_mark)  # pragma: no cover


def _construct_scalar(node: ScalarNode) -> Any:
    try:
        return go_scalar(node.tag, node.value)
    except ValueError as error:
        raise _Limited(str(error), node.start_mark) from None


def _key(node: Node) -> str:
    """Mapping keys become strings, as sigs.k8s.io/yaml converts them for JSON."""
    if not isinstance(node, ScalarNode):
        raise _Limited("mapping keys must be scalars", node.start_mark)
    return key_text(_construct_scalar(node))


def _construct_mapping(node: MappingNode) -> dict[str, Any]:
    result: dict[str, Any] = {}
    merged: list[dict[str, Any]] = []
    for key_node, value_node in node.value:
        key_tag = key_node.tag
        if key_tag == MERGE:
            sources = value_node.value if isinstance(value_node, SequenceNode) else [value_node]
            for source in sources:
                if not isinstance(source, MappingNode):
                    raise _Limited(
                        "merge key << needs a mapping or a list of mappings", source.start_mark
                    )
                merged.append(_construct_mapping(source))
            continue
        # A string key is its own text; _key converts the others as sigs.k8s.io/yaml does.
        key = key_node.value if key_tag == STR and type(key_node) is ScalarNode else _key(key_node)
        if key in result:
            raise _Limited(f'key "{key}" already set in map', key_node.start_mark)
        # Most values are strings: skip the call (the value construct would return).
        if value_node.tag == STR and type(value_node) is ScalarNode:
            result[key] = value_node.value
        else:
            result[key] = construct(value_node)
    # Explicit keys win over merged ones, and earlier merge sources over later ones (YAML merge spec).
    for source in merged:
        for key, value in source.items():
            result.setdefault(key, value)
    return result


def load_yaml(text: str, source: str) -> list[Any]:
    """All documents of a YAML stream as plain values (None for empty documents)."""
    loader = None
    documents: list[Any] = []
    try:
        loader = LimitedLoader(text)
        loader.get_event()  # StreamStartEvent
        while not loader.check_event(StreamEndEvent):
            node = loader.compose_document()
            documents.append(construct(node) if node is not None else None)
        return documents
    except _Limited as error:
        document = loader.documents if loader is not None else 1
        raise at_mark(error.problem, error.mark, source, document) from None
    except yaml.MarkedYAMLError as error:
        problem = error.problem or error.context or "invalid YAML"
        if error.context and error.problem:
            problem = f"{error.problem} ({error.context})"
        document = max(loader.documents, 1) if loader is not None else 1
        raise at_mark(problem, error.problem_mark, source, document) from None
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


def at_mark(problem: str, mark: Any, source: str, document: int) -> ManifestError:
    """A ManifestError located at a PyYAML mark."""
    line = mark.line + 1 if mark is not None else None
    column = mark.column + 1 if mark is not None else None
    return ManifestError(
        problem, source=source, document=document or None, line=line, column=column
    )
