"""Export: a saved revision as YAML for `kubectl apply -f`, whole or in parts."""

from __future__ import annotations

from django.http import HttpResponse
from django.views.decorators.http import require_GET

from policyeditor.core.htmx import HtmxHttpRequest
from policyeditor.editor.access import get_draft_for
from policyeditor.editor.models import Draft
from policyeditor.editor.reviewing import ExportError, export_revision_for, record_export
from policyeditor.engine import validation
from policyeditor.engine.manifests.roundtrip import update_source
from policyeditor.engine.objects import family

PARTS = ("all", "policy", "bindings", "params")


def select_part(draft: Draft, part: str, documents: list | None = None) -> list[dict]:
    """The documents of one export part: all, the policy, its bindings, or the param objects."""
    source = draft.documents if documents is None else documents
    docs = [d for d in source if isinstance(d, dict)]
    if part == "policy":
        return [d for d in docs if d.get("kind") == draft.policy_kind]
    if part == "bindings":
        return [d for d in docs if d.get("kind") == f"{draft.policy_kind}Binding"]
    if part == "params":
        return [d for d in docs if family(str(d.get("kind", ""))) is None]
    return docs


def _problem(text: str, status: int) -> HttpResponse:
    return HttpResponse(text + "\n", status=status, content_type="text/plain; charset=utf-8")


@require_GET
def draft_export(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Download a revision (?revision=latest|approved|N, ?part=all|policy|bindings|params) as YAML."""
    draft = get_draft_for(request.user, pk)
    part = request.GET.get("part", "all")
    if part not in PARTS:
        return _problem(f"part must be one of: {', '.join(PARTS)}", 400)
    try:
        revision = export_revision_for(draft, request.GET.get("revision", ""))
    except ExportError as exc:
        return _problem(str(exc), 404 if request.GET.get("revision") == "approved" else 400)
    documents = revision.documents if revision is not None else None
    source = revision.source if revision is not None else draft.source
    # The YAML as written; a part is the same text with the other documents cut out.
    text = update_source(source, select_part(draft, part, documents))
    approved = request.GET.get("revision") == "approved"
    number = revision.number if revision is not None else draft.revision
    record_export(request.user, draft, number, part=part, approved=approved)
    response = HttpResponse(text, content_type="application/yaml; charset=utf-8")
    if request.GET.get("raw") != "1":
        suffix = "" if part == "all" else f"-{part}"
        if revision is not None:
            suffix = f"-{'approved-' if approved else ''}r{revision.number}{suffix}"
        response["Content-Disposition"] = (
            f'attachment; filename="{_filename(draft.name)}{suffix}.yaml"'
        )
    return response


@require_GET
def draft_export_static(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Download a revision (?revision=) as a staticManifestsDir layout (.zip) with the
    AdmissionConfiguration that points kube-apiserver at it (manifest-based admission control)."""
    draft = get_draft_for(request.user, pk)
    try:
        revision = export_revision_for(draft, request.GET.get("revision", ""))
    except ExportError as exc:
        return _problem(str(exc), 404 if request.GET.get("revision") == "approved" else 400)
    documents = revision.documents if revision is not None else draft.documents
    files = validation.static_layout([d for d in documents if isinstance(d, dict)])
    number = revision.number if revision is not None else draft.revision
    record_export(request.user, draft, number, part="static", approved=False)
    response = HttpResponse(validation.layout_zip(files), content_type="application/zip")
    response["Content-Disposition"] = (
        f'attachment; filename="{_filename(draft.name)}-static-manifests.zip"'
    )
    return response


def _filename(name: str) -> str:
    safe = "".join(c if c.isalnum() or c in "-._" else "-" for c in name).strip("-.")
    return safe or "draft"
