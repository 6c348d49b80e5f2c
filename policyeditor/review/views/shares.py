"""Opening a share link: a read-only view of one revision for team members."""

from __future__ import annotations

from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET

from policyeditor.core.htmx import HtmxHttpRequest
from policyeditor.editor.crds import draft_crds
from policyeditor.editor.views import trying
from policyeditor.engine.manifests.loading import dump_documents
from policyeditor.review import testcases, workflow
from policyeditor.review.models import ShareLink
from policyeditor.review.permissions import can_view


@require_GET
def shared(request: HtmxHttpRequest, token: str) -> HttpResponse:
    """The shared revision: policy, YAML and test results; 404 when revoked or not a member."""
    link = get_object_or_404(
        ShareLink.objects.select_related("revision__draft", "revision__author"), token=token
    )
    revision = link.revision
    draft = revision.draft
    if link.revoked or not can_view(request.user, draft):
        raise Http404("This link does not exist or was revoked")
    context = {
        "link": link,
        "draft": draft,
        "revision": revision,
        # The YAML as written: what export returns, byte for byte.
        "yaml": revision.source or dump_documents(revision.documents),
        "approved": workflow.approved_revision(draft),
        "tests": testcases.report_for(draft, revision, baseline=None),
    }
    if link.try_inputs:
        # The shared Try-it inputs are replayed on the shared revision, read-only.
        inputs = trying.stored_inputs(link.try_inputs)
        outcome = trying.evaluate_documents(
            revision.documents, inputs, revision.kubernetes_version, draft_crds(draft)
        )
        context.update(trying.result_context(draft, outcome), try_inputs=inputs)
    return render(request, "review/shared.html", context)
