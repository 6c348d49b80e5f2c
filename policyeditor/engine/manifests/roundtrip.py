"""Lossless YAML: a draft's source kept as written, changed only where its documents change.

`update_source` tries, in order: the text edits of manifests.textpatch (every unchanged byte
kept), then ruamel.yaml's round-trip mode (comments, key order, quoting and block styles kept;
the changed documents re-emitted), then a plain kubectl-ready dump. Each candidate must load back
to exactly the wanted documents before it is taken, so a formatting shortcut never changes what
is applied. The source given here was already read by load_documents (size, alias and depth
limits), and ruamel keeps aliases as references, so it never expands a bomb.
"""

from __future__ import annotations

import io
import re
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import YAMLError

from policyeditor.engine.errors import InputError
from policyeditor.engine.jsontypes import same_json
from policyeditor.engine.manifests.dump import dump_documents
from policyeditor.engine.manifests.loading import load_documents
from policyeditor.engine.manifests.textpatch import patch_text
from policyeditor.engine.manifests.yaml_scalars import Unsupported

_JSON_START = re.compile(r"\A\s*[\[{]")
# Patching composes the source with PyYAML's pure-Python parser (exact character positions) and
# ruamel.yaml, both far slower than libyaml: past this size a change is a plain dump instead, so
# a live validation of a huge draft stays as fast as before. Policies are a few KiB.
MAX_PATCH_CHARS = 256 * 1024
_SEQ_UNDER_KEY = re.compile(r"^( *)[^\s#-][^\n]*:[ \t]*\n( *)- ", re.MULTILINE)
_MAP_UNDER_KEY = re.compile(r"^( *)[^\s#-][^\n]*:[ \t]*\n( *)[^\s#-]", re.MULTILINE)


def _loads_to(text: str, documents: list[dict[str, Any]]) -> bool:
    try:
        return same_json(load_documents(text, source="source"), documents)
    except InputError:
        return False


def source_for(text: str, documents: list[dict[str, Any]]) -> str:
    """The YAML to keep for documents read from `text`: `text` itself when it loads to them."""
    if text.strip() and not _JSON_START.match(text) and _loads_to(text, documents):
        return text.removeprefix("\ufeff")
    return dump_documents(documents) if documents else ""


def _yaml(source: str) -> YAML:
    """A round-trip YAML with the source's own indentation and no line folding."""
    rt = YAML(typ="rt")
    rt.preserve_quotes = True
    rt.width = 1 << 30
    mapping = 2
    found = _MAP_UNDER_KEY.search(source)
    if found and len(found.group(2)) > len(found.group(1)):
        mapping = len(found.group(2)) - len(found.group(1))
    offset = 0
    seq = _SEQ_UNDER_KEY.search(source)
    if seq:
        offset = max(0, len(seq.group(2)) - len(seq.group(1)))
    rt.indent(mapping=mapping, sequence=offset + 2, offset=offset)
    rt.explicit_start = source.lstrip().startswith("---")
    return rt


def _merge(node: Any, old: Any, new: Any) -> Any:
    """`node` (a ruamel value that loaded as `old`) updated in place to `new`, or `new` itself."""
    if same_json(old, new):
        return node
    if isinstance(node, CommentedMap) and isinstance(old, dict) and isinstance(new, dict):
        for key in [k for k in node if k not in new]:
            del node[key]
        for key, value in new.items():
            if key in node and key in old:
                node[key] = _merge(node[key], old[key], value)
            else:
                node[key] = value
        return node
    if isinstance(node, CommentedSeq) and isinstance(old, list) and isinstance(new, list):
        for index, value in enumerate(new[: len(node)]):
            if index < len(old):
                node[index] = _merge(node[index], old[index], value)
            else:
                node[index] = value
        del node[len(new) :]
        node.extend(new[len(node) :])
        return node
    if isinstance(new, str) and isinstance(node, str) and type(node) is not str:
        try:
            return type(node)(new)  # keeps quoting or literal block style
        except TypeError:
            return new
    return new


def roundtrip_dump(
    source: str, old_docs: list[dict[str, Any]], new_docs: list[dict[str, Any]]
) -> str:
    """ruamel.yaml's round trip of `source` with each document merged into its new state."""
    rt = _yaml(source)
    try:
        tree = [doc for doc in rt.load_all(source) if doc is not None]
    except YAMLError as error:
        raise Unsupported(f"ruamel.yaml cannot read the source: {error}") from None
    if len(tree) != len(old_docs) or not all(isinstance(d, CommentedMap) for d in tree):
        raise Unsupported("List documents or documents that do not line up")
    merged = [
        _merge(node, old, new) for node, old, new in zip(tree, old_docs, new_docs, strict=False)
    ]
    merged.extend(new_docs[len(tree) :])
    out = io.StringIO()
    rt.dump_all(merged, out)
    return out.getvalue()


def update_source(source: str, documents: list[dict[str, Any]]) -> str:
    """YAML text that loads to `documents`, keeping as much of `source` as is still true."""
    if not source.strip():
        return dump_documents(documents) if documents else ""
    try:
        old_docs = load_documents(source, source="source")
    except InputError:
        return dump_documents(documents) if documents else ""
    if same_json(old_docs, documents):
        return source
    if len(source) > MAX_PATCH_CHARS:
        return dump_documents(documents) if documents else ""
    for attempt in (patch_text, roundtrip_dump):
        try:
            text = attempt(source, old_docs, documents)
        except (Unsupported, YAMLError, InputError):
            continue
        if _loads_to(text, documents):
            return text
    return dump_documents(documents) if documents else ""
