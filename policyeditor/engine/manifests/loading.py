"""Safe loading and dumping of YAML/JSON manifests, with the limits an API server would apply.

Public API: load_documents, load_file, dump_documents, ManifestError and the MAX_* limits.
YAML goes through manifests.fast (libyaml's composer, limits checked on its node graph) and,
for anything it cannot vouch for, manifests.compose (limited composer, plain-value constructor);
JSON input goes through the json module first, because YAML 1.1 mishandles some JSON
(surrogate-pair escapes); dumping lives in manifests.dump.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

from policyeditor.engine.jsonkinds import type_name
from policyeditor.engine.manifests.compose import (
    MAX_ALIAS_CHARS,
    MAX_ALIAS_NODES,
    MAX_ALIASES,
    MAX_BYTES,
    MAX_DEPTH,
    MAX_DOCUMENTS,
    MAX_NODES,
    ManifestError,
    load_yaml,
)
from policyeditor.engine.manifests.dump import dump_documents
from policyeditor.engine.manifests.fast import fast_load
from policyeditor.engine.manifests.jsontext import json_float, may_hold_surrogates, unstorable

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
    "load_json_value",
]


def decode_text(text: str | bytes, source: str) -> str:
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


_JSON_START = re.compile(r"\A\s*[\[{]")


def _json_decoder() -> json.JSONDecoder:
    return json.JSONDecoder(
        object_pairs_hook=json_object, parse_constant=json_constant, parse_float=json_float
    )


def _decode_error(error: Exception, source: str, document: int | None) -> ManifestError:
    """The ManifestError for JSON that did not decode (syntax, nesting, a refused value)."""
    if isinstance(error, json.JSONDecodeError):
        return ManifestError(
            error.msg, source=source, document=document, line=error.lineno, column=error.colno
        )
    if isinstance(error, RecursionError):
        return ManifestError(
            f"nesting deeper than {MAX_DEPTH} levels", source=source, document=document
        )
    # Duplicate fields, NaN/Infinity, numbers beyond float64, over-long integers.
    return ManifestError(str(error), source=source, document=document)


def _check_decoded(value: Any, check_strings: bool, source: str, document: int | None) -> None:
    """ManifestError when a decoded value nests too deep or holds an unpaired surrogate."""
    if _depth_exceeds(value, MAX_DEPTH):
        raise ManifestError(
            f"nesting deeper than {MAX_DEPTH} levels", source=source, document=document
        )
    problem = unstorable(value) if check_strings else None
    if problem:
        raise ManifestError(problem, source=source, document=document)


def _load_json(text: str, source: str) -> list[Any]:
    """A stream of JSON values (kubectl accepts concatenated objects)."""
    decoder = _json_decoder()
    check_strings = may_hold_surrogates(text)
    documents: list[Any] = []
    index = 0
    end = len(text)
    while True:
        while index < end and text[index] in " \t\r\n":
            index += 1
        if index >= end:
            return documents
        number = len(documents) + 1
        try:
            value, index = decoder.raw_decode(text, index)
        except (ValueError, RecursionError) as error:
            raise _decode_error(error, source, number) from None
        _check_decoded(value, check_strings, source, number)
        documents.append(value)
        if len(documents) > MAX_DOCUMENTS:
            raise ManifestError(f"too many documents (more than {MAX_DOCUMENTS})", source=source)


def load_json_value(text: str, *, source: str = "<input>") -> Any:
    """One JSON value, strictly (no YAML fallback), with load_documents' JSON limits; or ManifestError.

    Duplicate fields, NaN/Infinity and numbers beyond float64 are refused (as the API server's
    strict decoding does), and so are nesting past MAX_DEPTH and unpaired surrogates (no JSON
    text or database can hold them).
    """
    try:
        value = _json_decoder().decode(text)
    except (ValueError, RecursionError) as error:
        raise _decode_error(error, source, None) from None
    _check_decoded(value, may_hold_surrogates(text), source, None)
    return value


def json_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f'duplicate field "{key}"')
        result[key] = value
    return result


def json_constant(name: str) -> Any:
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


def load_documents(text: str | bytes, *, source: str = "<input>") -> list[dict[str, Any]]:
    """Parse YAML or JSON (multi-document) into plain dicts; raise ManifestError (an InputError)."""
    decoded = decode_text(text, source)
    raw: list[Any] | None = None
    if _JSON_START.match(decoded):
        try:
            raw = _load_json(decoded, source)
        except ManifestError:
            raw = None  # YAML is a superset: let its parser accept it or say precisely why not
    if raw is None:
        # libyaml composes what it can vouch for; errors and limits come from the exact path
        raw = fast_load(decoded)
    if raw is None:
        raw = load_yaml(decoded, source)
    return _flatten(raw, source)


def _flatten(raw: list[Any], source: str) -> list[dict[str, Any]]:
    """Drop empty documents, refuse non-objects, expand `List` kinds into their items."""
    documents: list[dict[str, Any]] = []
    for number, document in enumerate(raw, start=1):
        if document is None:
            continue
        if not isinstance(document, dict):
            raise ManifestError(
                f"expected an object (a mapping), got {type_name(document, 'manifest')}",
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


def _list_items(
    document: dict[str, Any], kind: str, items: list[Any], source: str, number: int
) -> list[dict[str, Any]]:
    """Items of a List; typed lists (FooList) may omit apiVersion/kind on items, so fill them in."""
    result = []
    for position, item in enumerate(items):
        if not isinstance(item, dict):
            raise ManifestError(
                f"items[{position}]: expected an object (a mapping), got {type_name(item, 'manifest')}",
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


def load_file(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
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
