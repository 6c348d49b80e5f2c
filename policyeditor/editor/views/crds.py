"""A draft's CRDs: which ones it uses (its team's library or its own pin), and pinning them."""

from __future__ import annotations

from django.db import transaction
from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_http_methods

from policyeditor.core.htmx import HtmxHttpRequest
from policyeditor.editor.access import can_edit, get_draft_for
from policyeditor.editor.crds import draft_pin, team_library
from policyeditor.editor.models import DraftCrdPin
from policyeditor.schemalib import services as library


@require_http_methods(["GET", "POST"])
def draft_crds(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """GET: the CRDs the draft uses; POST action=pin (pasted or uploaded) or action=unpin."""
    draft = get_draft_for(request.user, pk)
    editable = can_edit(request.user, draft)
    error, status = "", 200
    if request.method == "POST":
        if not editable:
            error, status = "Your role in this draft's team is read-only.", 403
        elif request.POST.get("action") == "unpin":
            DraftCrdPin.objects.filter(draft=draft).delete()
        else:
            upload = request.FILES.get("file")
            text = upload.read() if upload is not None else request.POST.get("text", "")
            try:
                source = (upload.name if upload else None) or "pasted text"
                registry = library.parse_import(text, source)
            except library.ImportRefused as exc:
                error, status = str(exc), 400
            else:
                with transaction.atomic():
                    DraftCrdPin.objects.update_or_create(
                        draft=draft,
                        defaults={
                            "documents": registry.documents(),
                            "summary": library.summarize(registry),
                            "created_by": request.user if request.user.is_authenticated else None,
                        },
                    )
    pin = draft_pin(draft)
    context = {
        "draft": draft,
        "pin": pin,
        "library": team_library(draft),
        "editable": editable,
        "error": error,
    }
    template = "editor/crds_body.html" if request.htmx else "editor/crds.html"
    return render(request, template, context, status=200 if request.htmx else status)
