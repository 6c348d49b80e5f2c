"""The fast path of YAML loading: libyaml composes, we check the limits on its node graph.

`fast_load(text)` returns the documents `compose.load_yaml` would return, or None when it
cannot vouch for the input; the caller then runs the exact path, which gives the same values or
the same error (message, document, line and column). None is the answer for any error, any limit
reached or any doubt, so the fast path never has to reproduce an error: it only has to accept
nothing the exact path refuses and to build the same values, which the shared constructor does.

PyYAML's composers call the resolver's descend/ascend hooks around every node they build (for
path resolvers, which we do not use): ours count nodes and open nesting while libyaml composes,
so an input is abandoned at MAX_NODES nodes or MAX_DEPTH levels instead of being composed whole.
A text without `*` has no alias, and those counts are the whole check. With aliases, libyaml
shares one node between an anchor and its aliases (a DAG, or a cycle for an alias inside its
own anchor), so expanded sizes are computed once per node, in document order, as the exact
composer counts them. Positions (manifests.positions) and every error message stay with the
exact path.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from yaml.nodes import MappingNode, Node, ScalarNode

from policyeditor.engine.manifests.compose import (
    MAX_ALIAS_CHARS,
    MAX_ALIAS_NODES,
    MAX_ALIASES,
    MAX_DEPTH,
    MAX_DOCUMENTS,
    MAX_NODES,
    LoadResolver,
    construct,
)

try:
    from yaml._yaml import CParser

    _HAS_CPARSER = True
except ImportError:  # pragma: no cover - depends on how PyYAML was built
    _HAS_CPARSER = False

Size = tuple[int, int, int]  # (nodes, scalar characters, depth) once aliases are expanded


class _Unsure(Exception):
    """Internal: a limit may be reached; the exact path decides (and says where)."""


if _HAS_CPARSER:

    class _FastLoader(CParser, LoadResolver):
        """libyaml's parser and composer, the exact path's resolver, nodes counted as composed."""

        def __init__(self, stream: str) -> None:
            CParser.__init__(self, stream)
            LoadResolver.__init__(self)
            composed = 0  # nodes built so far in the input (aliases build none)
            open_nodes = 0  # nodes being built: the collections around one, and itself

            # The hooks are closures on the instance, found before the class's methods: libyaml
            # calls them twice per node, and nonlocal counters cost less than attributes.
            def descend_resolver(current_node: Any, current_index: Any) -> None:
                nonlocal composed, open_nodes
                composed += 1
                open_nodes += 1
                # open_nodes is the collection depth of a collection, one more than a scalar's.
                if composed > MAX_NODES or open_nodes > MAX_DEPTH:
                    raise _Unsure

            def ascend_resolver() -> None:
                nonlocal open_nodes
                open_nodes -= 1

            def counts() -> tuple[int, int]:
                return composed, open_nodes

            # Instance attributes that shadow BaseResolver's methods (mypy refuses a plain
            # assignment to a method).
            vars(self).update(descend_resolver=descend_resolver, ascend_resolver=ascend_resolver)
            self.counts = counts


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
    if not _HAS_CPARSER:  # pragma: no cover - depends on how PyYAML was built
        return None
    if not _HOOKS_COUNT:  # pragma: no cover - a PyYAML whose composer skips the hooks
        return None
    try:
        loader = _FastLoader(text)
        try:
            with _gc_paused():
                # An alias is written `*name`: without that character every document is a tree.
                return _documents(loader, trees="*" not in text)
        finally:
            loader.dispose()
    except Exception:  # _Unsure, a syntax error, an unsupported tag...: the exact path says which
        return None


_pause_lock = threading.Lock()
_pauses = 0  # loads under way in this process (threads of one server share the collector)
_resume = False  # whether the collector was on when the first of them began


@contextmanager
def _gc_paused() -> Iterator[None]:
    """The cyclic garbage collector paused while the node graph and the values are built."""
    # They are many containers and no cycles (a recursive alias is one, refused at once): the
    # collector's passes over them cost as much as building them. It is re-enabled when the
    # last overlapping load ends, and only if it was on before the first: a thread must not
    # take another's pause for the application's setting and leave the collector off for good.
    global _pauses, _resume
    with _pause_lock:
        if _pauses == 0:
            _resume = gc.isenabled()
            gc.disable()
        _pauses += 1
    try:
        yield
    finally:
        with _pause_lock:
            _pauses -= 1
            if _pauses == 0 and _resume:
                gc.enable()


def _documents(loader: Any, trees: bool) -> list[Any]:
    budget = _Budget()
    documents: list[Any] = []
    while loader.check_node():
        if len(documents) >= MAX_DOCUMENTS:
            raise _Unsure
        node = loader.get_node()
        if not trees:
            # Anchors do not cross documents, and each document's nodes stay alive while their
            # ids are in the memo (its root holds them).
            budget.sizes = {}
            budget.measure(node, 0)
        documents.append(construct(node))
    return documents


def _hooks_count() -> bool:
    """Whether libyaml's composer calls the hooks once per node (the limits rely on it)."""
    if not _HAS_CPARSER:  # pragma: no cover - depends on how PyYAML was built
        return False
    loader = _FastLoader("a: [1, {b: c}]\n---\n- [[x]]\n")
    try:
        while loader.check_node():
            loader.get_node()
        return loader.counts() == (11, 0)
    except Exception:  # pragma: no cover - the same
        return False
    finally:
        loader.dispose()


_HOOKS_COUNT = _hooks_count()
