"""Impact analysis pages: upload a dump, watch the queued run's progress, filter its rows in SQL."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from django.contrib import messages
from django.core.exceptions import RequestDataTooBig
from django.http import (
    HttpResponse,
    HttpResponseBadRequest,
    StreamingHttpResponse,
    UnreadablePostError,
)
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.csrf import csrf_exempt, csrf_protect
from django.views.decorators.http import require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRefresh

from policyeditor.core.htmx import HtmxHttpRequest
from policyeditor.core.middleware import allow_large_body
from policyeditor.editor.access import get_draft_for
from policyeditor.editor.models import Draft, Revision
from policyeditor.editor.views.editing import TRY_INPUTS_SESSION_KEY
from policyeditor.engine import impact
from policyeditor.review import impact_runs
from policyeditor.review.forms import LIMIT_MIB, ImpactRunForm
from policyeditor.review.impact_report import report_lines, unbound_warnings
from policyeditor.review.impact_store import try_inputs
from policyeditor.review.models import ImpactRun
from policyeditor.review.permissions import can_cancel_impact, can_start_impact
from policyeditor.review.views.common import draft_and_revision, forbidden
from policyeditor.review.workflow import NotAllowed, WorkflowError, approved_revision

# The whole multipart body: the dump and the namespaces, a little over the dump's own limit.
MAX_BODY = impact.MAX_DUMP_BYTES + 16 * 1024 * 1024


@allow_large_body(MAX_BODY)
@require_http_methods(["GET", "POST"])
@csrf_exempt  # checked by csrf_protect on _impact_new, once the body is parsed here
def impact_new(request: HtmxHttpRequest, pk: int, number: int) -> HttpResponse:
    """The form to upload or paste a dump of objects (and namespaces) for revision `number`."""
    # Before the body is read (a GiB, for an upload): someone who may not see the draft gets its
    # 404 and a viewer the 403, both without a side effect, so no CSRF check is needed for them.
    draft, revision = draft_and_revision(request.user, pk, number)
    if request.method == "POST" and not can_start_impact(request.user, draft):
        return forbidden(request, impact_runs.START_REFUSED)
    # The CSRF middleware would parse the body first, and a paste past the limit of text fields
    # (uploads have their own, larger one) would end there as a bare 400. Parsed here, it gets
    # the form back with the reason (Django's documented pattern for upload handlers).
    try:
        request.POST  # noqa: B018 - read for its side effect: parsing the body
    except RequestDataTooBig:
        return _paste_too_large(request, draft, revision)
    except UnreadablePostError:
        # The browser stopped sending (a closed tab, a dropped connection): nobody reads this.
        return HttpResponseBadRequest("The upload was interrupted; nothing was stored.")
    return _impact_new(request, draft, revision)


@csrf_protect
def _impact_new(request: HtmxHttpRequest, draft: Draft, revision: Revision) -> HttpResponse:
    # On a refusal the form comes back with what was pasted and ticked (a browser cannot refill
    # a file input: the message says to choose the file again).
    form = ImpactRunForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        try:
            run = impact_runs.start_run(
                request.user,
                draft,
                revision,
                form.cleaned_data["objects"],
                form.cleaned_data["namespace_objects"],
                defaulting=not form.cleaned_data["no_defaulting"],
            )
        except NotAllowed as error:
            return forbidden(request, str(error))
        except WorkflowError as error:
            form.add_error(None, str(error))
        else:
            return redirect(run)
    return _render_new(request, draft, revision, form)


def _paste_too_large(request: HtmxHttpRequest, draft: Draft, revision: Revision) -> HttpResponse:
    """The form again, empty, saying how much may be pasted (nothing of the body was read)."""
    # No CSRF check: nothing was read, nothing is stored; the answer is the page a GET gets.
    form = ImpactRunForm({}, paste_too_large=True)
    form.is_valid()
    # No "Connection: close" for the unread rest of the body: see core/middleware.too_large_response.
    return _render_new(request, draft, revision, form, status=413)


def _render_new(
    request: HtmxHttpRequest,
    draft: Draft,
    revision: Revision,
    form: ImpactRunForm,
    status: int = 200,
) -> HttpResponse:
    can_start = can_start_impact(request.user, draft)
    context = {
        "draft": draft,
        "revision": revision,
        "form": form,
        "approved": approved_revision(draft),
        "can_start": can_start,
        "limit_mib": LIMIT_MIB,
        # Said before a dump is chosen, not only once a large one has been sent.
        "at_limit": can_start and request.method == "GET" and impact_runs.at_limit(request.user),
        "limit_message": impact_runs.limit_message(),
        # Said before a dump is chosen: the API server would refuse the policies, so no run starts.
        "refusals": impact_runs.refusals(revision) if can_start else [],
        "runs": ImpactRun.objects.filter(draft=draft).select_related("revision", "baseline")[:10],
    }
    return render(request, "review/impact_new.html", context, status=status)


def _run_for(request: HtmxHttpRequest, pk: int, run_id: int) -> ImpactRun:
    draft = get_draft_for(request.user, pk)
    return get_object_or_404(
        ImpactRun.objects.select_related("revision", "baseline", "draft").defer("namespaces"),
        draft=draft,
        pk=run_id,
    )


def impact_run(request: HtmxHttpRequest, pk: int, run_id: int) -> HttpResponse:
    """Progress while the run is queued or going on (htmx polls it), then counts and the table."""
    run = _run_for(request, pk, run_id)
    if not run.done:
        impact_runs.requeue_stale(run)
    if request.htmx and request.GET.get("poll"):
        if run.done:
            response = HttpResponseClientRefresh()
            response.status_code = 204  # nothing to swap: htmx reloads the page to show the rows
            return response
        context = {
            "run": run,
            "draft": run.draft,
            "can_cancel": can_cancel_impact(request.user, run),
        }
        return render(request, "review/impact_run.html#progress", context)
    context = {
        "run": run,
        "draft": run.draft,
        "can_cancel": can_cancel_impact(request.user, run),
        "can_start": can_start_impact(request.user, run.draft),
        "unbound": unbound_warnings(run),
    }
    # A cancelled run shows the rows it stored before it stopped, marked as partial.
    if run.state in (ImpactRun.State.DONE, ImpactRun.State.CANCELLED):
        result, operation = request.GET.get("result", ""), request.GET.get("operation", "")
        only_changed, text = request.GET.get("changed") == "1", request.GET.get("q", "")
        filters = {"result": result, "operation": operation, "changed": only_changed, "q": text}
        number = request.GET.get("page")
        paginator = impact_runs.paginate_results(
            run,
            100,
            number or 1,
            result=result,
            operation=operation,
            only_changed=only_changed,
            text=text,
        )
        page = paginator.get_page(number)
        summary = run.summary or impact_runs.summarize(run)
        context.update(
            summary=summary,
            count_rows=_count_rows(summary),
            # None: a run summarized before the API server's answers were stored.
            denied_newly=summary.get("deniedNewly"),
            page=page,
            matching=page.paginator.count,
            filters=filters,
            # The filters for the pages' links, encoded as the template's urlencode filter does.
            pager_query=f"result={quote(result)}&operation={quote(operation)}&q={quote(text)}&"
            + ("changed=1&" if only_changed else ""),
            results=impact.RESULTS,
            operations=impact.OPERATIONS,
        )
    return render(request, "review/impact_run.html", context)


def _count_rows(summary: dict[str, Any]) -> list[dict[str, Any]]:
    """The counts table's rows: per operation each result, mutated, and the API server's answers
    (None where the run was summarized before they were stored)."""
    rows = []
    for operation in impact.OPERATIONS:
        counts = summary.get(operation, {})
        rows.append(
            {
                "operation": operation,
                "results": [(result, counts.get(result, 0)) for result in impact.RESULTS],
                "mutated": counts.get("mutated", 0),
                "rejected": counts.get("rejected"),
                "error_rejected": counts.get("errorRejected"),
                "error_admitted": counts.get("errorAdmitted"),
            }
        )
    return rows


@require_POST
def impact_cancel(request: HtmxHttpRequest, pk: int, run_id: int) -> HttpResponse:
    """Stop a queued or running run."""
    try:
        run = impact_runs.cancel_run(request.user, _run_for(request, pk, run_id))
    except NotAllowed as error:
        return forbidden(request, str(error))
    return redirect(run)


def impact_try(request: HtmxHttpRequest, pk: int, run_id: int, position: int) -> HttpResponse:
    """Open the editor's Try it with one object of the run's dump, as the run evaluated it."""
    run = _run_for(request, pk, run_id)
    operation = "UPDATE" if request.GET.get("operation") == "UPDATE" else "CREATE"
    try:
        inputs = try_inputs(run, position, operation)
    except (OSError, LookupError, ValueError, EOFError, TypeError):
        messages.error(request, "The objects of this run are no longer kept.")
        return redirect(run)
    request.session[f"{TRY_INPUTS_SESSION_KEY}:{run.draft_id}"] = inputs
    latest = run.draft.revisions.order_by("-number").values_list("number", flat=True).first()
    if run.revision.number != latest:
        messages.info(
            request,
            f"Try it evaluates the draft as it is now (r{latest}); this run evaluated "
            f"r{run.revision.number}.",
        )
    return redirect(reverse("editor:draft_edit", args=[run.draft_id]) + "#try")


def impact_report(request: HtmxHttpRequest, pk: int, run_id: int) -> StreamingHttpResponse:
    """Every row of a finished run as JSON lines, streamed from the database."""
    run = _run_for(request, pk, run_id)
    response = StreamingHttpResponse(report_lines(run), content_type="application/x-ndjson")
    response["Content-Disposition"] = f'attachment; filename="impact-{run.pk}.jsonl"'
    return response
