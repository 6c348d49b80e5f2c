"""CEL completion suggestions for the editor's expression fields (JSON)."""

from __future__ import annotations

from django.http import JsonResponse
from django.views.decorators.http import require_GET

from policyeditor.core.htmx import HtmxHttpRequest
from policyeditor.editor.completion import complete
from policyeditor.editor.yamlassist import field_help
from policyeditor.engine.versions import normalize_version


@require_GET
def cel_complete(request: HtmxHttpRequest) -> JsonResponse:
    """Suggestions for what may follow ?path= (gvk=group/version/kind, vars=a,b, version=)."""
    try:
        version = normalize_version(request.GET.get("version"))
    except ValueError:
        return JsonResponse({"error": "unsupported Kubernetes version"}, status=400)
    parts = request.GET.get("gvk", "apps/v1/Deployment").split("/")
    gvk: tuple[str, str, str] | None = None
    if len(parts) == 2:
        gvk = ("", parts[0], parts[1])
    elif len(parts) == 3:
        gvk = (parts[0], parts[1], parts[2])
    if gvk is None:
        return JsonResponse({"error": "gvk must be group/version/kind or version/kind"}, status=400)
    names = tuple(v for v in request.GET.get("vars", "").split(",") if v)
    items = complete(request.GET.get("path", ""), gvk=gvk, variables=names, version=version)
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
