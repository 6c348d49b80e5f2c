"""CEL completion suggestions for the editor's expression fields (JSON)."""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from typing import Any

from django.http import JsonResponse
from django.views.decorators.http import require_GET

from policyeditor.core.htmx import HtmxHttpRequest
from policyeditor.editor.access import get_draft_for
from policyeditor.editor.completion import complete
from policyeditor.editor.crds import draft_layer
from policyeditor.editor.yamlassist import field_help
from policyeditor.engine.versions import normalize_version


def _gvk(text: str) -> tuple[str, str, str] | None:
    """(group, version, kind) of "group/version/kind" or "version/kind", else None."""
    parts = text.split("/")
    if len(parts) == 2:
        return ("", parts[0], parts[1])
    if len(parts) == 3:
        return (parts[0], parts[1], parts[2])
    return None


@require_GET
def cel_complete(request: HtmxHttpRequest) -> JsonResponse:
    """Suggestions for what may follow ?path= (gvk=, params= group/version/kind, vars=a,b, version=,
    draft= whose team's CRDs are in force)."""
    try:
        version = normalize_version(request.GET.get("version"))
    except ValueError:
        return JsonResponse({"error": "unsupported Kubernetes version"}, status=400)
    gvk = _gvk(request.GET.get("gvk", "apps/v1/Deployment"))
    param_gvk = _gvk(request.GET.get("params", ""))
    if gvk is None:
        return JsonResponse({"error": "gvk must be group/version/kind or version/kind"}, status=400)
    names = tuple(v for v in request.GET.get("vars", "").split(",") if v)
    draft_id = request.GET.get("draft", "")
    layer: AbstractContextManager[Any] = nullcontext()
    if draft_id.isdigit():
        # The draft's CRDs (its team's schema library) give custom resources their fields.
        layer = draft_layer(get_draft_for(request.user, int(draft_id)))
    with layer:
        items = complete(
            request.GET.get("path", ""),
            gvk=gvk,
            variables=names,
            version=version,
            param_gvk=param_gvk,
        )
    return JsonResponse({"items": items[:200]})


@require_GET
def yaml_help(request: HtmxHttpRequest) -> JsonResponse:
    """The YAML editor's schema help: ?api=&kind=&path=&version= -> doc, child keys, enum values."""
    try:
        version = normalize_version(request.GET.get("version"))
    except ValueError:
        return JsonResponse({"error": "unsupported Kubernetes version"}, status=400)
    api, kind = request.GET.get("api", ""), request.GET.get("kind", "")
    if not api or not kind:
        return JsonResponse({"doc": "", "type": "", "items": [], "enum": []})
    return JsonResponse(field_help(api, kind, request.GET.get("path", ""), version))
