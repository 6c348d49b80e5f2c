"""A draft's revisions, and its export as kubectl-ready YAML."""

from __future__ import annotations

import re

from django.http import Http404, HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response

from policyeditor.api.base import ApiView
from policyeditor.api.problems import Problem
from policyeditor.api.renderers import YAMLTextRenderer
from policyeditor.api.schema import AUTH_ERRORS, problem
from policyeditor.api.serializers_drafts import RevisionSerializer, RevisionSummarySerializer
from policyeditor.api.views_drafts import DraftPagination
from policyeditor.editor.access import get_draft_for
from policyeditor.editor.models import Draft, Revision
from policyeditor.review.workflow import NotAllowed, approved_revision, export_revision

NOT_FOUND = {404: problem("No such draft or revision."), **AUTH_ERRORS}


class RevisionListView(ApiView):
    """GET the revisions of a draft, newest first."""

    @extend_schema(
        operation_id="revisions_list",
        summary="List a draft's revisions",
        parameters=[OpenApiParameter("page", int), OpenApiParameter("pageSize", int)],
        responses={200: RevisionSummarySerializer(many=True), **NOT_FOUND},
        tags=["drafts"],
    )
    def get(self, request: Request, pk: int) -> Response:
        draft = get_draft_for(request.user, pk)
        revisions = draft.revisions.select_related("author").order_by("-number")
        paginator = DraftPagination()
        page = paginator.paginate_queryset(revisions, request, view=self)
        return paginator.get_paginated_response(RevisionSummarySerializer(page, many=True).data)


class RevisionDetailView(ApiView):
    """GET one revision with its documents."""

    @extend_schema(
        operation_id="revisions_retrieve",
        summary="Get one revision",
        responses={200: RevisionSerializer, **NOT_FOUND},
        tags=["drafts"],
    )
    def get(self, request: Request, pk: int, number: int) -> Response:
        draft = get_draft_for(request.user, pk)
        revision = draft.revisions.select_related("author").filter(number=number).first()
        if revision is None:
            raise Http404(f"draft {draft.pk} has no revision {number}")
        return Response(RevisionSerializer(revision).data)


def chosen_revision(draft: Draft, which: str) -> Revision:
    """`latest`, `approved` or a number; a 404 names what is missing, a 400 a bad value."""
    which = (which or "latest").strip()
    if which == "latest":
        revision = draft.revisions.filter(number=draft.revision).first()
    elif which == "approved":
        revision = approved_revision(draft)
        if revision is None:
            raise Http404(f"draft {draft.pk} has no approved revision yet (status: {draft.status})")
    elif re.fullmatch(r"[0-9]{1,9}", which):
        revision = draft.revisions.filter(number=int(which)).first()
    else:
        raise Problem(
            400,
            f'revision: Unsupported value: "{which}": supported values: "latest", "approved", '
            "or a revision number",
            errors=[{"path": "revision", "message": f"unsupported value {which!r}"}],
        )
    if revision is None:
        raise Http404(f"draft {draft.pk} has no revision {which}")
    return revision


class ExportView(ApiView):
    """GET the draft's documents as multi-document YAML, ready for `kubectl apply -f -`."""

    # JSON first so errors are problem JSON for `curl`; text/yaml so `Accept: text/yaml` works.
    renderer_classes = [JSONRenderer, YAMLTextRenderer]

    @extend_schema(
        operation_id="drafts_export",
        summary="Export a draft as YAML",
        description=(
            '`curl -fsS -H "Authorization: Token $TOKEN" .../export.yaml | kubectl apply -f -`. '
            "`revision` picks `latest` (default), `approved` or a revision number."
        ),
        parameters=[
            OpenApiParameter(
                "revision",
                str,
                description='"latest" (default), "approved", or a revision number.',
            )
        ],
        responses={
            (200, "text/yaml"): OpenApiResponse(OpenApiTypes.STR, description="The YAML."),
            400: problem("Unsupported revision value."),
            **NOT_FOUND,
        },
        tags=["drafts"],
    )
    def get(self, request: Request, pk: int) -> HttpResponse:
        draft = get_draft_for(request.user, pk)
        revision = chosen_revision(draft, request.query_params.get("revision", "latest"))
        try:
            text = export_revision(
                request.user, draft, revision
            )  # records the export in the audit log
        except NotAllowed as exc:
            raise Problem(403, str(exc)) from exc
        response = HttpResponse(text, content_type="text/yaml; charset=utf-8")
        filename = re.sub(r"[^A-Za-z0-9._-]", "-", draft.name) or f"draft-{draft.pk}"
        response["Content-Disposition"] = f'inline; filename="{filename}.yaml"'
        response["X-Draft-Revision"] = str(revision.number)
        return response
