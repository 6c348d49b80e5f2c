"""What the review app serves to the editor page: field comments and Try-it share links."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_POST

from policyeditor.core.htmx import HtmxHttpRequest
from policyeditor.editor import try_store
from policyeditor.editor.access import get_draft_for
from policyeditor.review import comments, workflow
from policyeditor.review.diffs import document_label
from policyeditor.review.models import ShareLink
from policyeditor.teams.errors import WorkflowError


@require_POST
def share_try(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """A read-only link to the latest saved revision with the posted Try-it inputs."""
    draft = get_draft_for(request.user, pk)
    revision = draft.revisions.filter(number=draft.revision).first()
    context: dict = {"draft": draft, "link": None, "problem": ""}
    if revision is None:
        context["problem"] = "Save the draft first: a link shares a saved revision."
    else:
        try:
            context["link"] = workflow.create_share_link(
                request.user, draft, revision, try_inputs=try_store.inputs_of(request.POST)
            )
        except WorkflowError as exc:
            context["problem"] = str(exc)
    return render(request, "review/try_share.html", context)


@require_POST
def field_comment(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """A comment on one field of the latest saved revision, posted from the editor's form."""
    draft = get_draft_for(request.user, pk)
    revision = draft.revisions.filter(number=draft.revision).first()
    problem = ""
    comment = None
    try:
        index = int(request.POST.get("doc_index", "0"))
    except ValueError:
        index = -1
    documents = revision.documents if revision is not None else []
    if revision is None:
        problem = "Save the draft first: comments are on saved revisions."
    elif not 0 <= index < len(documents):
        problem = f"Revision {revision.number} has no document {index + 1}."
    else:
        try:
            comment = comments.add_comment(
                request.user,
                draft,
                revision,
                request.POST.get("body", ""),
                field_path=request.POST.get("field_path", ""),
                document=document_label(documents[index], index),
            )
        except WorkflowError as exc:
            problem = str(exc)
    response = render(
        request, "review/field_comment.html", {"comment": comment, "problem": problem}
    )
    return response


@require_POST
def revoke_try_share(request: HtmxHttpRequest, pk: int, token: str) -> HttpResponse:
    """Revoke a share link from the editor's Try-it tab; the tab says it no longer opens."""
    draft = get_draft_for(request.user, pk)
    link = get_object_or_404(ShareLink, token=token, revision__draft=draft)
    context: dict = {"draft": draft, "link": None, "problem": "", "revoked": None}
    try:
        context["revoked"] = workflow.revoke_share_link(request.user, link)
    except WorkflowError as exc:
        context["problem"] = str(exc)
    return render(request, "review/try_share.html", context)
