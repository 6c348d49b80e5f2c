"""Helpers shared by the review views: fetching drafts and revisions, turning errors into messages."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from policyeditor.editor.access import get_draft_for
from policyeditor.editor.models import Draft, Revision
from policyeditor.review.workflow import NotAllowed, WorkflowError


def draft_and_revision(user, pk, number) -> tuple[Draft, Revision]:
    """The draft (404 unless visible) and one of its revisions (404 if missing)."""
    draft = get_draft_for(user, pk)
    try:
        return draft, draft.revisions.select_related("author").get(number=int(number))
    except (Revision.DoesNotExist, ValueError, TypeError, OverflowError) as exc:
        raise Http404("No such revision") from exc


def perform(
    request: HttpRequest, action: Callable[[], object], *, success: str, back: str
) -> HttpResponse:
    """Run a workflow action; its refusal becomes a message (403 for a role problem) and redirect."""
    try:
        action()
    except NotAllowed as error:
        # The page hides what a role cannot do, so only a crafted request gets here.
        return forbidden(request, str(error))
    except WorkflowError as error:
        messages.error(request, str(error))
        return redirect(back)
    if success:
        messages.success(request, success)
    return redirect(back)


def forbidden(request: HttpRequest, message: str) -> HttpResponse:
    """A 403 page that says why."""
    return render(request, "review/forbidden.html", {"message": message}, status=403)


def safe_filename(name: str) -> str:
    """A download file name made of safe characters."""
    safe = "".join(c if c.isalnum() or c in "-._" else "-" for c in name).strip("-.")
    return safe or "draft"
