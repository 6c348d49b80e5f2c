"""Request body parsers: JSON or YAML, read with the API server's 3 MiB limit and manifest limits."""

from __future__ import annotations

from typing import Any

from rest_framework.parsers import BaseParser

from policyeditor.api.problems import payload_too_large
from policyeditor.engine.manifests import MAX_BYTES, load_documents

SOURCE = "<request body>"


class ManifestBody(list):
    """The documents a body held (a list of mappings), remembering it was YAML or JSON text."""

    def __init__(self, documents: list[dict], *, yaml: bool) -> None:
        super().__init__(documents)
        self.yaml = yaml


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


class _ManifestParser(BaseParser):
    """Parses the body with manifests.load_documents (depth, alias, duplicate-key, NaN limits)."""

    is_yaml = False

    def parse(self, stream, media_type=None, parser_context=None) -> ManifestBody:
        data = read_limited(stream, _content_length(parser_context))
        return ManifestBody(load_documents(data, source=SOURCE), yaml=self.is_yaml)


class JSONManifestParser(_ManifestParser):
    """application/json bodies."""

    media_type = "application/json"


class YAMLManifestParser(_ManifestParser):
    """application/yaml (and text/yaml, application/x-yaml) bodies."""

    media_type = "application/yaml"
    is_yaml = True


class TextYAMLParser(YAMLManifestParser):
    """text/yaml bodies (what `curl --data-binary @policy.yaml -H 'Content-Type: text/yaml'` sends)."""

    media_type = "text/yaml"


class XYAMLParser(YAMLManifestParser):
    """application/x-yaml bodies (an older name some tools send)."""

    media_type = "application/x-yaml"


PARSERS = [JSONManifestParser, YAMLManifestParser, TextYAMLParser, XYAMLParser]
