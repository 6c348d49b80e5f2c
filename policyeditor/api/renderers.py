"""Renderers: JSON for everything, YAML text for export (so `Accept: text/yaml` is honoured)."""

from __future__ import annotations

from typing import Any

from rest_framework.renderers import BaseRenderer

from policyeditor.engine.manifests.loading import dump_documents


class YAMLTextRenderer(BaseRenderer):
    """text/yaml: strings as they are, other data (problems) as one YAML document."""

    media_type = "text/yaml"
    format = "yaml"
    charset = "utf-8"

    def render(self, data: Any, accepted_media_type=None, renderer_context=None) -> bytes:
        if data is None:
            return b""
        if isinstance(data, str):
            return data.encode("utf-8")
        return dump_documents([dict(data)] if isinstance(data, dict) else [{"data": data}]).encode()
