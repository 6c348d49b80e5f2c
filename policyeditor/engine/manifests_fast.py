"""The fast path of YAML loading: libyaml composes, we check the limits on its node graph.

`fast_load(text)` returns the documents `manifests_yaml.load_yaml` would return, or None when it
cannot vouch for the input; the caller then runs the exact path, which gives the same values or
the same error (message, document, line and column). None is the answer for any error, any limit
reached or any doubt, so the fast path never has to reproduce an error: it only has to accept
nothing the exact path refuses and to build the same values, which the shared constructor does.

libyaml's composer shares one node between an anchor and its aliases (a DAG, or a cycle for an
alias inside its own anchor), so expanded sizes are computed once per node, in document order, as
the exact composer counts them; a text without `*` has no alias, and its documents are trees
whose nodes and depth are counted level by level. libyaml composes a whole document before we
see it, so its event count (counted in C, building nothing) bounds the work first: an input the
exact path accepts has at most about 2 * MAX_NODES events, and more go straight to the exact path.
Positions (manifests_positions) and every error message stay with the exact path.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from .manifests_yaml import (
    MAX_ALIAS_CHARS,
    MAX_ALIAS_NODES,
    MAX_ALIASES,
    MAX_DEPTH,
    MAX_DOCUMENTS,
    MAX_NODES,
    _construct,
    _LoadResolver,
)

try:
    from yaml._yaml import CParser
except ImportError:  # pragma: no cover - depends on how PyYAML was built
    CParser = None

# Stream start/end, document start/end per document, one event per scalar or alias and two per
# collection: an input within the node and document limits never has more events than this.
MAX_EVENTS = 2 + 2 * MAX_DOCUMENTS + 2 * MAX_NODES

Size = tuple[int, int, int]  # (nodes, scalar characters, depth) once aliases are expanded


class _Unsure(Exception):
    """Internal: a limit may be reached; the exact path decides (and says where)."""


if CParser is not None:

    class _FastLoader(CParser, _LoadResolver):
        """libyaml's parser and composer with the exact path's go-yaml resolver."""

        def __init__(self, stream: str) -> None:
            CParser.__init__(self, stream)
            _LoadResolver.__init__(self)


class _Budget:
    """What the exact composer counts per input: nodes, alias uses and what aliases add."""

    def __init__(self) -> None:
        self.nodes = 0
        self.alias_uses = 0
        self.alias_nodes = 0
        self.alias_chars = 0
        self.sizes: dict[int, Size] = {}  # per document: id(node) -> expanded size
        self.open: set[int] = set()  # collections being measured (an alias to one is a cycle)

    def measure(self, node: Node, depth: int) -> Size:
        """A node's expanded size; `depth` counts the collections around it."""
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise _Unsure
        key = id(node)
        size = self.sizes.get(key)
        if size is not None:  # met before in document order: this occurrence is an alias
            self.alias_uses += 1
            self.alias_nodes += size[0]
            self.alias_chars += size[1]
            if (
                self.alias_uses > MAX_ALIASES
                or self.alias_nodes > MAX_ALIAS_NODES
                or self.alias_chars > MAX_ALIAS_CHARS
                or depth + size[2] > MAX_DEPTH
            ):
                raise _Unsure
            return size
        if key in self.open:
            raise _Unsure  # an alias inside its own anchor
        if type(node) is ScalarNode:
            size = (1, len(node.value), 0)
        else:
            size = self._collection(node, depth + 1)
        self.sizes[key] = size
        return size

    def _collection(self, node: Node, depth: int) -> Size:
        if depth > MAX_DEPTH:
            raise _Unsure
        key = id(node)
        self.open.add(key)
        children = node.value
        if type(node) is MappingNode:
            children = [child for pair in children for child in pair]
        nodes, chars, deepest = 1, 0, 0
        for child in children:
            size = self.measure(child, depth)
            nodes += size[0]
            chars += size[1]
            if size[2] > deepest:
                deepest = size[2]
        self.open.discard(key)
        return (nodes, chars, deepest + 1)


def fast_load(text: str) -> list[Any] | None:
    """All documents of a YAML stream as load_yaml builds them, or None: ask the exact path."""
    if CParser is None:  # pragma: no cover - depends on how PyYAML was built
        return None
    try:
        counter = CParser(text)
        try:
            events = counter.raw_parse()  # in C, builds nothing: bounds what composing costs
        finally:
            counter.dispose()
        if events > MAX_EVENTS:
            return None
        loader = _FastLoader(text)
        try:
            with _gc_paused():
                # An alias is written `*name`: without that character every document is a tree.
                return _documents(loader, trees="*" not in text)
        finally:
            loader.dispose()
    except Exception:  # _Unsure, a syntax error, an unsupported tag...: the exact path says which
        return None


@contextmanager
def _gc_paused() -> Iterator[None]:
    """The cyclic garbage collector paused while the node graph and the values are built."""
    # They are many containers and no cycles (a recursive alias is one, refused at once): the
    # collector's passes over them cost as much as building them. Re-enabled only if it was on.
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _documents(loader: Any, trees: bool) -> list[Any]:
    budget = _Budget()
    documents: list[Any] = []
    while loader.check_node():
        if len(documents) >= MAX_DOCUMENTS:
            raise _Unsure
        node = loader.get_node()
        if trees:
            budget.nodes += _tree_nodes(node)
            if budget.nodes > MAX_NODES:
                raise _Unsure
        else:
            # Anchors do not cross documents, and each document's nodes stay alive while their
            # ids are in the memo (its root holds them).
            budget.sizes = {}
            budget.measure(node, 0)
        documents.append(_construct(node))
    return documents


def _tree_nodes(root: Node) -> int:
    """Nodes of an alias-free document, level by level; _Unsure past MAX_DEPTH or MAX_NODES."""
    count = 0
    level = [root]
    depth = 0  # collections around the nodes of `level`
    while level:
        count += len(level)
        if count > MAX_NODES:
            raise _Unsure
        below: list[Node] = []
        for node in level:
            kind = type(node)
            if kind is MappingNode:
                for pair in node.value:
                    below.extend(pair)
            elif kind is SequenceNode:
                below.extend(node.value)
            else:
                continue
            if depth + 1 > MAX_DEPTH:  # this collection nests one level deeper
                raise _Unsure
        level = below
        depth += 1
    return count
