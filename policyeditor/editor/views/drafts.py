"""The drafts list and the editor page."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from policyeditor.editor.access import get_draft_for
from policyeditor.editor.models import Draft


def draft_list(request: HttpRequest) -> HttpResponse:
    """The user's drafts."""
    drafts = Draft.objects.visible_to(request.user)
    return render(request, "editor/draft_list.html", {"drafts": drafts})


def draft_edit(request: HttpRequest, pk: int) -> HttpResponse:
    """The editor page for one draft."""
    draft = get_draft_for(request.user, pk)
    return render(request, "editor/draft_edit.html", {"draft": draft})
