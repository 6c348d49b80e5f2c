"""POST endpoints that move a draft through review, comment, resolve and share."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.views.decorators.http import require_POST

from policyeditor.core.htmx import HtmxHttpRequest
from policyeditor.editor.access import get_draft_for
from policyeditor.editor.models import Draft
from policyeditor.review import comments, moves, workflow
from policyeditor.review.models import Comment, ShareLink
from policyeditor.review.views.common import draft_and_revision, perform
from policyeditor.review.views.revisions import revision_url
from policyeditor.teams.roles import teams_of


def _latest_url(draft) -> str:
    latest = workflow.latest_revision(draft)
    return revision_url(draft, latest.number if latest else 1)


@require_POST
def assign_team(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Move the draft into one of the user's teams (or ask its team's admins to let it go)."""
    draft = get_draft_for(request.user, pk)
    team = teams_of(request.user).filter(pk=_int(request.POST.get("team", ""))).first()
    if team is None:
        raise Http404("No such team")

    def move() -> None:
        moved = workflow.assign_team(request.user, draft, team)
        if moved.team_id == team.pk:
            messages.success(request, f"The draft now belongs to {team.name}.")
        else:
            messages.info(
                request,
                f"Asked the admins of {moved.team.name} to approve moving the draft to {team.name}.",
            )

    return perform(request, move, success="", back=_latest_url(draft))


def _on_draft(
    request: HtmxHttpRequest,
    pk: int,
    act: Callable[[Any, Draft], object],
    success: str,
    back: str = "",
) -> HttpResponse:
    """`act(user, draft)` on the user's draft `pk`, then back to `back` (its latest revision)."""
    draft = get_draft_for(request.user, pk)
    return perform(
        request,
        lambda: act(request.user, draft),
        success=success,
        back=back or _latest_url(draft),
    )


@require_POST
def approve_move(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """A team admin lets the draft's owner move it to the team they asked for."""
    return _on_draft(
        request,
        pk,
        moves.approve_move,
        success="Move approved: the draft left the team.",
        back=reverse("review:inbox"),
    )


@require_POST
def decline_move(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """A team admin declines a move request, or its requester takes it back."""
    return _on_draft(request, pk, moves.decline_move, success="Move request declined.")


@require_POST
def request_review(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Ask the team to review the latest revision."""
    note = request.POST.get("note", "")
    return _on_draft(
        request,
        pk,
        lambda user, draft: workflow.request_review(user, draft, note=note),
        success="Review requested.",
    )


@require_POST
def withdraw_review(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Take the draft out of review."""
    return _on_draft(request, pk, workflow.withdraw_review, success="Review request withdrawn.")


@require_POST
def decide(request: HtmxHttpRequest, pk: int, number: int) -> HttpResponse:
    """Approve or request changes on revision `number` (it must still be the latest)."""
    draft, revision = draft_and_revision(request.user, pk, number)
    body = request.POST.get("body", "")
    decision = request.POST.get("decision")
    if decision == "approve":

        def action():
            return workflow.approve(request.user, draft, revision_number=revision.number, body=body)

        success = f"You approved revision {revision.number}."
    elif decision == "request_changes":

        def action():
            return workflow.request_changes(
                request.user, draft, revision_number=revision.number, body=body
            )

        success = "Changes requested."
    else:
        return HttpResponse("decision must be approve or request_changes\n", status=400)
    return perform(request, action, success=success, back=revision_url(draft, revision.number))


@require_POST
def add_comment(request: HtmxHttpRequest, pk: int, number: int) -> HttpResponse:
    """Comment on the revision, one of its fields, or reply to a thread."""
    draft, revision = draft_and_revision(request.user, pk, number)
    parent = None
    if request.POST.get("parent"):
        parent = Comment.objects.filter(draft=draft, pk=_int(request.POST["parent"])).first()
        if parent is None:
            raise Http404("No such thread")
    return perform(
        request,
        lambda: comments.add_comment(
            request.user,
            draft,
            revision,
            request.POST.get("body", ""),
            field_path=request.POST.get("field_path", ""),
            document=request.POST.get("document", ""),
            parent=parent,
        ),
        success="Comment added.",
        back=revision_url(draft, revision.number),
    )


@require_POST
def resolve(request: HtmxHttpRequest, comment_id: int) -> HttpResponse:
    """Resolve (resolved=1) or reopen (resolved=0) a thread."""
    comment = get_object_or_404(Comment.objects.select_related("draft", "revision"), pk=comment_id)
    draft = get_draft_for(request.user, comment.draft_id)  # 404 for outsiders
    resolved = request.POST.get("resolved", "1") == "1"
    return perform(
        request,
        lambda: comments.set_resolved(request.user, comment, resolved),
        success="Thread resolved." if resolved else "Thread reopened.",
        back=revision_url(draft, comment.revision.number),
    )


@require_POST
def create_share(request: HtmxHttpRequest, pk: int, number: int) -> HttpResponse:
    """Create a read-only link to the revision."""
    draft, revision = draft_and_revision(request.user, pk, number)
    return perform(
        request,
        lambda: workflow.create_share_link(request.user, draft, revision),
        success="Share link created.",
        back=revision_url(draft, revision.number),
    )


@require_POST
def revoke_share(request: HtmxHttpRequest, token: str) -> HttpResponse:
    """Revoke a share link."""
    link = get_object_or_404(ShareLink.objects.select_related("revision__draft"), token=token)
    draft = get_draft_for(request.user, link.revision.draft_id)
    return perform(
        request,
        lambda: workflow.revoke_share_link(request.user, link),
        success="Share link revoked.",
        back=revision_url(draft, link.revision.number),
    )


def _int(value: str) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0
