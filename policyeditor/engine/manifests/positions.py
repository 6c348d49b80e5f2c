"""Where each field of a manifest is written: field paths to 1-based (line, column).

The editor and the CLI use it to point a FieldError (`spec.validations[0].expression`) at its
line in the YAML text. Documents line up with load_documents' result (empty documents skipped,
List items expanded); a path that is not written (a missing required field) is located at its
nearest written parent.
"""

from __future__ import annotations

from yaml.events import StreamEndEvent
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from policyeditor.engine.manifests.compose import LimitedLoader
from policyeditor.engine.manifests.loading import decode_text

Positions = dict[str, tuple[int, int]]


def _key_text(node: Node) -> str | None:
    return node.value if isinstance(node, ScalarNode) else None


def _walk(node: Node, path: str, out: Positions, depth: int = 0) -> None:
    # Depth is bounded by the composer's MAX_DEPTH; aliases may repeat subtrees but not loop.
    if depth > 200:
        return
    if isinstance(node, MappingNode):
        for key, value in node.value:
            name = _key_text(key)
            if name is None or name == "<<":
                continue
            here = f"{path}.{name}" if path else name
            out.setdefault(here, (key.start_mark.line + 1, key.start_mark.column + 1))
            _walk(value, here, out, depth + 1)
    elif isinstance(node, SequenceNode):
        for position, item in enumerate(node.value):
            here = f"{path}[{position}]"
            out.setdefault(here, (item.start_mark.line + 1, item.start_mark.column + 1))
            _walk(item, here, out, depth + 1)


def _is_list_kind(node: Node) -> SequenceNode | None:
    if not isinstance(node, MappingNode):
        return None
    fields = {_key_text(key): value for key, value in node.value}
    kind, items = fields.get("kind"), fields.get("items")
    if (
        isinstance(kind, ScalarNode)
        and kind.value.endswith("List")
        and isinstance(items, SequenceNode)
    ):
        return items
    return None


def field_positions(text: str | bytes, *, source: str = "<input>") -> list[Positions]:
    """Per loaded document, the (line, column) of every written field path; [] if unreadable."""
    try:
        decoded = decode_text(text, source)
        loader = LimitedLoader(decoded)
    except Exception:  # positions are a convenience: never fail because of them
        return []
    documents: list[Positions] = []
    try:
        loader.get_event()
        while not loader.check_event(StreamEndEvent):
            node = loader.compose_document()
            if node is None or (isinstance(node, ScalarNode) and node.tag.endswith(":null")):
                continue
            items = _is_list_kind(node)
            for target in items.value if items is not None else [node]:
                positions: Positions = {
                    "": (target.start_mark.line + 1, target.start_mark.column + 1)
                }
                _walk(target, "", positions)
                documents.append(positions)
    except Exception:  # a limit or a syntax error: keep the documents before it
        return documents
    finally:
        dispose = getattr(loader, "dispose", None)
        if dispose is not None:
            dispose()
    return documents


def position_of(positions: Positions, path: str) -> tuple[int, int] | None:
    """The position of `path`, or of its nearest written parent (None if nothing matches)."""
    current = path
    while True:
        if current in positions:
            return positions[current]
        if not current:
            return None
        cut = max(current.rfind("."), current.rfind("["))
        current = current[:cut] if cut > 0 else ""


def locate(positions: list[Positions], document: int, path: str) -> tuple[int, int] | None:
    """Position of a FieldError path in document `document` (an index into load_documents)."""
    if not 0 <= document < len(positions):
        return None
    return position_of(positions[document], path)
