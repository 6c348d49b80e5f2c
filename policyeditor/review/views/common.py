"""Helpers shared by the review views: fetching drafts and revisions, turning errors into messages."""

from __future__ import annotations

from collections.abc import Callable

from django.http import Http404, HttpResponse
from django.urls import reverse

from policyeditor.core.htmx import HtmxHttpRequest
from policyeditor.editor.access import get_draft_for
from policyeditor.editor.models import Draft, Revision
from policyeditor.teams import views as team_views


def draft_and_revision(user, pk, number) -> tuple[Draft, Revision]:
    """The draft (404 unless visible) and one of its revisions (404 if missing)."""
    draft = get_draft_for(user, pk)
    try:
        return draft, draft.revisions.select_related("author").get(number=int(number))
    except (Revision.DoesNotExist, ValueError, TypeError, OverflowError) as exc:
        raise Http404("No such revision") from exc


def perform(
    request: HtmxHttpRequest, action: Callable[[], object], *, success: str, back: str
) -> HttpResponse:
    """Run a workflow action; its refusal becomes a message (403 for a role problem) and redirect."""
    return team_views.perform(request, action, success=success, back=back, refused=forbidden)


def forbidden(request: HtmxHttpRequest, message: str) -> HttpResponse:
    """A 403 page that says why."""
    return team_views.forbidden(
        request, message, back=reverse("review:inbox"), label="Back to reviews"
    )


def safe_filename(name: str) -> str:
    """A download file name made of safe characters."""
    safe = "".join(c if c.isalnum() or c in "-._" else "-" for c in name).strip("-.")
    return safe or "draft"
