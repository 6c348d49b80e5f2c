"""Autosave endpoints: keep the form's unsaved state on the server, or forget it."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_POST

from policyeditor.core.htmx import HtmxHttpRequest
from policyeditor.editor import autosaves
from policyeditor.editor.access import get_editable_draft_for
from policyeditor.editor.formdata import parse_post
from policyeditor.editor.views.editing import posted_version


def _base_revision(request: HtmxHttpRequest, current: int) -> int:
    """The posted revision the form was based on; `current` when it is not one the draft has had."""
    try:
        posted = max(0, int(request.POST.get("expected_revision", "")))
    except ValueError:
        return current
    # A later number than the draft's only comes from a crafted request (and may not fit a row).
    return posted if posted <= current else current


@require_POST
def draft_autosave(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Keep the posted form as the user's unsaved state; answers the autosave status."""
    draft = get_editable_draft_for(request.user, pk)
    parsed = parse_post(request.POST)
    # A param object whose YAML does not parse keeps its last good value in `documents` (the
    # text stays in the browser): what is kept is always a set of valid documents.
    kept = autosaves.record(
        draft,
        request.user,
        parsed.documents,
        posted_version(request, draft),
        _base_revision(request, draft.revision),
    )
    return render(request, "editor/autosave_status.html", {"kept": kept})


@require_POST
def draft_autosave_discard(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Forget the user's unsaved state of the draft."""
    draft = get_editable_draft_for(request.user, pk)
    autosaves.discard(draft, request.user)
    return render(request, "editor/autosave_status.html", {"kept": False})
