"""Impact analysis pages: upload a dump, watch progress, filter the per-object table."""

from __future__ import annotations

from urllib.parse import quote

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRefresh

from policyeditor.core.htmx import HtmxHttpRequest
from policyeditor.editor.access import get_draft_for
from policyeditor.review import impact, impact_runs
from policyeditor.review.models import ImpactRun
from policyeditor.review.views.common import draft_and_revision, forbidden
from policyeditor.review.workflow import NotAllowed, WorkflowError, approved_revision


def _upload_text(request: HtmxHttpRequest, file_field: str, text_field: str) -> bytes | str:
    upload = request.FILES.get(file_field)
    if upload is not None:
        if (upload.size or 0) > impact.MAX_DUMP_BYTES:
            raise WorkflowError("The uploaded dump is too large.")
        return upload.read()
    return request.POST.get(text_field, "")


@require_http_methods(["GET", "POST"])
def impact_new(request: HtmxHttpRequest, pk: int, number: int) -> HttpResponse:
    """The form to upload or paste a dump of objects (and namespaces) for revision `number`."""
    draft, revision = draft_and_revision(request.user, pk, number)
    if request.method == "POST":
        try:
            dump = _upload_text(request, "dump_file", "dump")
            namespaces = _upload_text(request, "namespaces_file", "namespaces")
            if not dump:
                raise WorkflowError("Paste or upload a dump of objects.")
            run = impact_runs.start_run(
                request.user,
                draft,
                revision,
                dump,
                namespaces,
                defaulting=request.POST.get("no_defaulting") != "on",
            )
        except NotAllowed as error:
            return forbidden(request, str(error))
        except WorkflowError as error:
            messages.error(request, str(error))
        else:
            return redirect(run)
    context = {
        "draft": draft,
        "revision": revision,
        "approved": approved_revision(draft),
        "runs": ImpactRun.objects.filter(draft=draft).select_related("revision", "baseline")[:10],
    }
    return render(request, "review/impact_new.html", context)


def _run_for(request: HtmxHttpRequest, pk: int, run_id: int) -> ImpactRun:
    draft = get_draft_for(request.user, pk)
    return get_object_or_404(
        ImpactRun.objects.select_related("revision", "baseline", "draft").defer("pending"),
        draft=draft,
        pk=run_id,
    )


def impact_run(request: HtmxHttpRequest, pk: int, run_id: int) -> HttpResponse:
    """Progress while the run goes on, then counts and the filterable table."""
    run = _run_for(request, pk, run_id)
    context: dict = {"run": run, "draft": run.draft}
    if run.done:
        result = request.GET.get("result", "")
        operation = request.GET.get("operation", "")
        only_changed = request.GET.get("changed") == "1"
        text = request.GET.get("q", "")
        rows = impact.filter_rows(
            run.rows, result=result, operation=operation, only_changed=only_changed, text=text
        )
        context.update(
            summary=impact.summarize(run.rows),
            page=Paginator(rows, 100).get_page(request.GET.get("page")),
            matching=len(rows),
            filters={"result": result, "operation": operation, "changed": only_changed, "q": text},
            # The filters for the pages' links, encoded as the template's urlencode filter does.
            pager_query=f"result={quote(result)}&operation={quote(operation)}&q={quote(text)}&"
            + ("changed=1&" if only_changed else ""),
            results=impact.RESULTS,
            operations=impact.OPERATIONS,
        )
    return render(request, "review/impact_run.html", context)


@require_POST
def impact_step(request: HtmxHttpRequest, pk: int, run_id: int) -> HttpResponse:
    """Evaluate the next chunk; htmx gets the progress bar back (or a refresh when done)."""
    run = impact_runs.step(_run_for(request, pk, run_id))
    if not request.htmx:
        return redirect(run)
    if run.done:
        response = HttpResponseClientRefresh()
        # 204: nothing to swap, htmx reloads the page to show the finished run.
        response.status_code = 204
        return response
    return render(request, "review/impact_run.html#progress", {"run": run, "draft": run.draft})
