"""Request body parsers: JSON or YAML, read with the API server's 3 MiB limit and manifest limits."""

from __future__ import annotations

from typing import Any

from rest_framework.parsers import BaseParser

from policyeditor.api.problems import payload_too_large
from policyeditor.engine.manifests.loading import (
    MAX_BYTES,
    ManifestError,
    load_documents,
    load_json_value,
)

SOURCE = "<request body>"


class ManifestBody(list):
    """The documents a body held (a list of mappings); `array` when it was one JSON array."""

    def __init__(self, documents: list[dict], *, array: bool = False, source: str = "") -> None:
        super().__init__(documents)
        self.array = array
        # The YAML text the documents were read from (a YAML body), kept as the draft's source.
        self.source = source


def read_limited(stream: Any, content_length: int | None) -> bytes:
    """The whole body, or a 413 problem as soon as it is known to exceed MAX_BYTES."""
    if content_length is not None and content_length > MAX_BYTES:
        raise payload_too_large(content_length)
    if stream is None:
        return b""
    data = stream.read(MAX_BYTES + 1)  # one byte past the limit tells "too large" from "exact"
    if len(data) > MAX_BYTES:
        raise payload_too_large()
    return data


def _content_length(parser_context: dict | None) -> int | None:
    request = (parser_context or {}).get("request")
    meta = getattr(request, "META", {}) if request is not None else {}
    try:
        return int(meta.get("CONTENT_LENGTH") or 0) or None
    except (TypeError, ValueError):
        return None


class _YAMLParser(BaseParser):
    """Parses the body with manifests.load_documents (depth, alias, duplicate-key, NaN limits)."""

    # djangorestframework-stubs say a parser returns a mapping; DRF takes any data (JSONParser
    # itself returns lists), and request.data is what this returns.
    def parse(self, stream, media_type=None, parser_context=None) -> ManifestBody:  # type: ignore[override]
        data = read_limited(stream, _content_length(parser_context))
        documents = load_documents(data, source=SOURCE)  # limits checked before the text is kept
        return ManifestBody(documents, source=data.decode("utf-8-sig"))


def load_json(data: bytes) -> Any:
    """Strict JSON (no YAML fallback: a JSON client means JSON): one value, or ManifestError."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        byte = data[exc.start : exc.start + 1]
        raise ManifestError(
            f"not valid UTF-8 (byte {exc.start}: {byte!r})", source=SOURCE
        ) from None
    if not text.strip():
        return None
    return load_json_value(text, source=SOURCE)


class JSONManifestParser(BaseParser):
    """application/json bodies: one JSON value, strictly."""

    media_type = "application/json"

    def parse(self, stream, media_type=None, parser_context=None) -> Any:
        value = load_json(read_limited(stream, _content_length(parser_context)))
        if isinstance(value, dict) or value is None:
            return ManifestBody([value] if value is not None else [])
        if isinstance(value, list) and all(isinstance(item, dict) for item in value):
            return ManifestBody(value, array=True)  # a JSON array of Kubernetes objects
        raise ManifestError("expected an object (a mapping) or a list of objects", source=SOURCE)


class YAMLManifestParser(_YAMLParser):
    """application/yaml bodies: multi-document YAML (or JSON) text."""

    media_type = "application/yaml"


class TextYAMLParser(YAMLManifestParser):
    """text/yaml bodies (what `curl --data-binary @policy.yaml -H 'Content-Type: text/yaml'` sends)."""

    media_type = "text/yaml"


class XYAMLParser(YAMLManifestParser):
    """application/x-yaml bodies (an older name some tools send)."""

    media_type = "application/x-yaml"


PARSERS = [JSONManifestParser, YAMLManifestParser, TextYAMLParser, XYAMLParser]
