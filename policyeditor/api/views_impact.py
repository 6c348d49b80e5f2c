"""Impact runs over HTTP: start one on a revision, poll it, list its rows with filters, get the report."""

# The same services as the HTML pages (review/impact_runs): the dump is stored once and the run
# goes on the task queue; these views never evaluate anything themselves.

from __future__ import annotations

from django.core.paginator import EmptyPage
from django.http import Http404, StreamingHttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.parsers import MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response

from policyeditor.api.base import ApiView
from policyeditor.api.problems import Problem
from policyeditor.api.schema import AUTH_ERRORS, problem
from policyeditor.api.views_review import perform, revision_of
from policyeditor.core.middleware import declared_length
from policyeditor.editor.access import get_draft_for
from policyeditor.engine import impact
from policyeditor.review import impact_runs
from policyeditor.review.impact_report import report_lines, result_dict, run_dict
from policyeditor.review.models import ImpactRun

MAX_BODY = impact.MAX_DUMP_BYTES + 16 * 1024 * 1024
PAGE_SIZE = 100
MAX_PAGE_SIZE = 1000
ERRORS = {
    400: problem("The request is not valid; detail says why."),
    403: problem("Your role does not allow this."),
    404: problem("No such draft, revision or run (or not yours)."),
    409: problem("You already have as many runs going as one user may."),
    413: problem("The dump is larger than 1 GiB."),
    **AUTH_ERRORS,
}
RUN_SCHEMA = {
    "type": "object",
    "description": "state: queued, reading, running, done, failed or cancelled; summary once done",
}


def flag(value: str, name: str) -> bool:
    """A true/false query parameter (true, false, 1 or 0, any case); anything else is a 400."""
    try:
        return {"true": True, "1": True, "false": False, "0": False}[value.strip().lower()]
    except KeyError:
        # A typo ("flase", "no") must not quietly pick the default the client wanted to change.
        raise Problem(400, f"{name} must be true or false (or 1 or 0)") from None


def run_for(request: Request, run_id: int) -> ImpactRun:
    """The run if its draft is visible to the user, else a 404."""
    run = get_object_or_404(ImpactRun.objects.select_related("revision", "baseline"), pk=run_id)
    get_draft_for(request.user, run.draft_id, documents=False)
    return run


class ImpactRunStartView(ApiView):
    """Start an impact run (multipart: `dump` file, optional `namespaces` file)."""

    parser_classes = [MultiPartParser]

    @extend_schema(
        operation_id="impact_run_start",
        summary="Start an impact run on a revision",
        tags=["impact"],
        parameters=[
            OpenApiParameter("revision", int, description="revision number (default: latest)"),
            OpenApiParameter(
                "defaulting",
                bool,
                description="default the objects (true, the default, or false; also 1 or 0)",
            ),
        ],
        request={
            "multipart/form-data": {
                "type": "object",
                "properties": {
                    "dump": {"type": "string", "format": "binary"},
                    "namespaces": {"type": "string", "format": "binary"},
                },
            }
        },
        responses={202: RUN_SCHEMA, **ERRORS},
    )
    def post(self, request: Request, pk: int) -> Response:
        size = declared_length(request._request)  # noqa: SLF001 - DRF's wrapped HttpRequest
        if size is not None and size > MAX_BODY:
            raise Problem(413, f"The dump is larger than {impact.MAX_DUMP_BYTES // 2**30} GiB.")
        draft = get_draft_for(request.user, pk)
        number = request.query_params.get("revision")
        try:
            revision = revision_of(draft, int(number) if number else None)
        except ValueError:
            raise Problem(400, "revision must be a number") from None
        defaulting = flag(request.query_params.get("defaulting", "true"), "defaulting")
        # Before the body is read: a viewer, a user at the limit, or policies the API server would
        # refuse, without uploading a GiB first. (start_run checks again, for the pages and for
        # runs started meanwhile.)
        perform(lambda: impact_runs.check_can_start(request.user, draft))
        if impact_runs.at_limit(request.user):
            raise Problem(409, impact_runs.limit_message())
        perform(lambda: impact_runs.check_policies(revision))
        dump = request.FILES.get("dump")
        if dump is None:
            raise Problem(400, "Send the objects as the multipart file field `dump`.")
        if (dump.size or 0) > impact.MAX_DUMP_BYTES:
            raise Problem(413, f"The dump is larger than {impact.MAX_DUMP_BYTES // 2**30} GiB.")
        run = perform(
            lambda: impact_runs.start_run(
                request.user,
                draft,
                revision,
                dump,
                request.FILES.get("namespaces"),
                defaulting=defaulting,
            )
        )
        return Response(run_dict(run), status=status.HTTP_202_ACCEPTED)


class ImpactRunDetailView(ApiView):
    """Poll a run: its state, how far it is, and its counts once done."""

    @extend_schema(
        operation_id="impact_run_get",
        summary="Poll an impact run",
        tags=["impact"],
        responses={200: RUN_SCHEMA, **ERRORS},
    )
    def get(self, request: Request, run_id: int) -> Response:
        run = run_for(request, run_id)
        if not run.done:
            impact_runs.requeue_stale(run)
        return Response(run_dict(run))


class ImpactRunCancelView(ApiView):
    """Cancel a queued or running run."""

    @extend_schema(
        operation_id="impact_run_cancel",
        summary="Cancel an impact run",
        tags=["impact"],
        request=None,
        responses={200: RUN_SCHEMA, **ERRORS},
    )
    def post(self, request: Request, run_id: int) -> Response:
        run = run_for(request, run_id)
        return Response(run_dict(perform(lambda: impact_runs.cancel_run(request.user, run))))


class ImpactRunRowsView(ApiView):
    """A page of a run's rows, filtered and counted in the database."""

    @extend_schema(
        operation_id="impact_run_rows",
        summary="List an impact run's rows",
        tags=["impact"],
        parameters=[
            OpenApiParameter(
                "result",
                str,
                description="allow, deny, warn, audit, skip, error, mutated, rejected (the API "
                "server's allowed is false) or deniedNewly (rejected, and admitted by the "
                "baseline; without one, every rejected row)",
            ),
            OpenApiParameter("operation", str, description="CREATE or UPDATE (default: either)"),
            OpenApiParameter(
                "changed", bool, description="only outcomes that changed against the baseline"
            ),
            OpenApiParameter("namespace", str),
            OpenApiParameter("kind", str),
            OpenApiParameter("q", str, description="name or namespace contains"),
            OpenApiParameter("page", int),
            OpenApiParameter(
                "page_size",
                int,
                description=f"from 1 (more than {MAX_PAGE_SIZE} gives {MAX_PAGE_SIZE})",
            ),
        ],
        responses={200: OpenApiTypes.OBJECT, **ERRORS},
    )
    def get(self, request: Request, run_id: int) -> Response:
        run = run_for(request, run_id)
        params = request.query_params
        result = params.get("result", "")
        if result and result not in impact_runs.FILTERS:
            raise Problem(400, f"result must be one of {', '.join(impact_runs.FILTERS)}")
        operation = params.get("operation", "").upper()
        if operation and operation not in impact.OPERATIONS:
            raise Problem(400, "operation must be CREATE or UPDATE")
        try:
            size = int(params.get("page_size", PAGE_SIZE))
            number = int(params.get("page", 1))
        except ValueError:
            raise Problem(400, "page and page_size must be numbers") from None
        if size < 1:
            # Not quietly 1: a client asking for 0 rows has a bug it should hear about.
            raise Problem(400, f"page_size must be from 1 to {MAX_PAGE_SIZE}")
        size = min(MAX_PAGE_SIZE, size)  # the documented cap, as DRF's max_page_size
        paginator = impact_runs.paginate_results(
            run,
            size,
            number,
            result=result,
            operation=operation,
            only_changed=flag(params.get("changed", "false"), "changed"),
            text=params.get("q", ""),
            namespace=params.get("namespace", ""),
            kind=params.get("kind", ""),
        )
        try:
            page = paginator.page(number)
        except EmptyPage:
            raise Http404(f"no page {number}") from None
        return Response(
            {
                "count": paginator.count,
                "page": page.number,
                "pages": paginator.num_pages,
                "results": [result_dict(row) for row in page.object_list],
            }
        )


class ImpactRunReportView(ApiView):
    """The whole report as JSON lines: the run first, then one line per object, streamed."""

    @extend_schema(
        operation_id="impact_run_report",
        summary="Download an impact run's report",
        tags=["impact"],
        responses={200: OpenApiTypes.STR, **ERRORS},
    )
    def get(self, request: Request, run_id: int) -> StreamingHttpResponse:
        run = run_for(request, run_id)
        response = StreamingHttpResponse(report_lines(run), content_type="application/x-ndjson")
        response["Content-Disposition"] = f'attachment; filename="impact-{run.pk}.jsonl"'
        return response
