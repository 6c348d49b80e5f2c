"""Drafts over HTTP: list, create, retrieve, update with optimistic concurrency, delete."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.urls import reverse
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request
from rest_framework.response import Response

from policyeditor.api.base import ApiView, envelope, looks_like_documents, revision_number
from policyeditor.api.problems import Problem
from policyeditor.api.schema import AUTH_ERRORS, problem
from policyeditor.api.serializers_drafts import (
    STATUS_CHOICES,
    DraftCreateSerializer,
    DraftPatchSerializer,
    DraftSerializer,
    DraftSummarySerializer,
    DraftUpdateSerializer,
)
from policyeditor.editor.access import get_draft_for, get_editable_draft_for, visible_drafts
from policyeditor.editor.models import Draft, Kind
from policyeditor.editor.quotas import QuotaExceeded
from policyeditor.editor.services import Conflict, DraftInputError, create_draft, save_draft
from policyeditor.review.permissions import team_of
from policyeditor.review.workflow import NotAllowed, delete_draft
from policyeditor.teams.models import Role
from policyeditor.teams.roles import has_role

WRITE_ERRORS = {
    400: problem("The documents or fields are not valid; detail says why."),
    403: problem("You may read this draft but not edit it."),
    404: problem("No such draft (or not yours)."),
    413: problem("The body is larger than 3 MiB."),
    **AUTH_ERRORS,
}


# What PUT and PATCH of a draft answer.
SAVE_RESPONSES = {
    200: DraftSerializer,
    409: problem("Someone saved a newer revision; nothing was written."),
    428: problem("No revision given."),
    **WRITE_ERRORS,
}


def _save_operation(**schema: Any) -> Any:
    """extend_schema of a save (PUT, PATCH): the edited revision as If-Match, the save answers."""
    return extend_schema(
        parameters=[OpenApiParameter("If-Match", str, OpenApiParameter.HEADER)],
        responses=SAVE_RESPONSES,
        tags=["drafts"],
        **schema,
    )


class DraftPagination(PageNumberPagination):
    """Pages of 20 drafts; `pageSize` asks for up to 100."""

    page_size = 20
    page_size_query_param = "pageSize"
    max_page_size = 100


def etag(draft: Draft) -> str:
    """The draft's entity tag: its revision number (what If-Match must carry to save)."""
    return f'"{draft.revision}"'


def draft_response(draft: Draft, code: int = 200, **kwargs) -> Response:
    """The draft as JSON, with its ETag for the next conditional save."""
    return Response(
        DraftSerializer(draft).data, status=code, headers={"ETag": etag(draft)}, **kwargs
    )


def quota_problem(exc: QuotaExceeded) -> Problem:
    """The 403 a write past a storage quota gets, with what was counted."""
    return Problem(
        403,
        str(exc),
        slug="quota-exceeded",
        title="Storage quota exceeded",
        extra={"quota": exc.what, "limit": exc.limit, "used": exc.used},
    )


def can_delete(user, draft: Draft) -> bool:
    """Delete a draft: staff, the owner of a personal draft, or an admin of its team."""
    if user.is_staff:
        return True
    team = team_of(draft)
    if team is None:
        return draft.owner_id == user.pk
    return has_role(user, team, Role.ADMIN)


def body_fields(request: Request) -> dict:
    """The JSON/YAML fields of a body; a bare YAML stream of objects is taken as `documents`."""
    if looks_like_documents(request.data):
        return {"documents": list(request.data)}
    return envelope(request.data)


def body_source(request: Request, attrs: dict) -> str | None:
    """The YAML text the documents came in (a YAML body or the `yaml` field), else None."""
    if "source" in attrs:
        return str(attrs["source"])
    source = getattr(request.data, "source", "")
    return source if source and looks_like_documents(request.data) else None


def expected_revision(request: Request, attrs: dict) -> int:
    """The revision the client edited: the body's `revision`, else If-Match, else 428."""
    if "revision" in attrs:
        return attrs["revision"]
    header = request.headers.get("If-Match", "").strip()
    if header.startswith("W/"):
        header = header[2:]
    number = revision_number(header.strip('"'))
    if number is not None:
        return number
    if header:
        raise Problem(400, f"If-Match must be a revision ETag such as '\"3\"', got {header!r}")
    raise Problem(
        428,
        "revision is required: send the revision you edited (field `revision` or If-Match) "
        "so concurrent edits are detected",
        errors=[{"path": "revision", "message": "This field is required."}],
    )


class DraftListView(ApiView):
    """GET the drafts you may see; POST a new one."""

    @extend_schema(
        operation_id="drafts_list",
        summary="List drafts",
        parameters=[
            OpenApiParameter("search", str, description="Text in the name or description."),
            OpenApiParameter("status", str, enum=STATUS_CHOICES),
            OpenApiParameter("kind", str, enum=Kind.values),
            OpenApiParameter("owner", str, description="Owner's username (staff see everyone's)."),
            OpenApiParameter("page", int),
            OpenApiParameter("pageSize", int, description="Drafts per page (at most 100)."),
        ],
        responses={
            200: DraftSummarySerializer(many=True),
            404: problem("No such page."),
            **AUTH_ERRORS,
        },
        tags=["drafts"],
    )
    def get(self, request: Request) -> Response:
        drafts = self.filtered(request)
        paginator = DraftPagination()
        page = paginator.paginate_queryset(drafts, request, view=self)
        return paginator.get_paginated_response(DraftSummarySerializer(page, many=True).data)

    def filtered(self, request: Request) -> QuerySet[Draft]:
        params = request.query_params
        drafts = visible_drafts(request.user).select_related("owner")
        drafts = drafts.search(params.get("search", ""))
        for field, choices in (("status", STATUS_CHOICES), ("kind", Kind.values)):
            value = params.get(field)
            if value:
                if value not in choices:
                    raise Problem(
                        400,
                        f'{field}: Unsupported value: "{value}": supported values: '
                        + ", ".join(f'"{c}"' for c in choices),
                        errors=[{"path": field, "message": f"unsupported value {value!r}"}],
                    )
                drafts = drafts.filter(**{field: value})
        if params.get("owner"):
            drafts = drafts.filter(owner__username=params["owner"])
        return drafts

    @extend_schema(
        operation_id="drafts_create",
        summary="Create a draft",
        description="From `documents` or `yaml` (JSON body), or a YAML body of the objects.",
        request=DraftCreateSerializer,
        responses={201: DraftSerializer, **WRITE_ERRORS},
        tags=["drafts"],
    )
    def post(self, request: Request) -> Response:
        serializer = DraftCreateSerializer(data=body_fields(request))
        serializer.is_valid(raise_exception=True)
        attrs = serializer.validated_data
        try:
            draft = create_draft(
                request.user,
                attrs["documents"],
                name=attrs.get("name", ""),
                kind=attrs.get("kind"),
                kubernetes_version=attrs.get("kubernetesVersion"),
                description=attrs.get("description", ""),
                note=attrs.get("note") or "Created through the API",
                source=body_source(request, attrs) or "",
            )
        except QuotaExceeded as exc:
            raise quota_problem(exc) from exc
        except DraftInputError as exc:
            raise Problem(400, str(exc)) from exc
        response = draft_response(draft, status.HTTP_201_CREATED)
        response["Location"] = reverse("api:draft_detail", args=[draft.pk])
        return response


class DraftDetailView(ApiView):
    """GET, PUT/PATCH (a new revision, 409 when stale) or DELETE one draft."""

    @extend_schema(
        operation_id="drafts_retrieve",
        summary="Get a draft",
        responses={
            200: DraftSerializer,
            404: problem("No such draft (or not yours)."),
            **AUTH_ERRORS,
        },
        tags=["drafts"],
    )
    def get(self, request: Request, pk: int) -> Response:
        return draft_response(get_draft_for(request.user, pk))

    @_save_operation(
        operation_id="drafts_update",
        summary="Save a draft (new revision)",
        description=(
            "Saves the documents as the next revision. Send the revision you edited as "
            '`revision` (or `If-Match: "<revision>"`, the ETag of GET); if someone saved since, '
            "nothing is written and the answer is 409 with `currentRevision`."
        ),
        request=DraftUpdateSerializer,
    )
    def put(self, request: Request, pk: int) -> Response:
        return self.save(request, pk, DraftUpdateSerializer)

    @_save_operation(
        operation_id="drafts_partial_update",
        summary="Save a draft, keeping unchanged fields",
        description="Like PUT; without documents/yaml the current documents are kept.",
        request=DraftPatchSerializer,
    )
    def patch(self, request: Request, pk: int) -> Response:
        return self.save(request, pk, DraftPatchSerializer)

    def save(self, request: Request, pk: int, serializer_class) -> Response:
        draft = get_editable_draft_for(request.user, pk)  # 404 unseen, 403 read-only
        serializer = serializer_class(data=body_fields(request))
        serializer.is_valid(raise_exception=True)
        attrs = serializer.validated_data
        revision = expected_revision(request, attrs)
        try:
            draft = save_draft(
                draft,
                attrs.get("documents", draft.documents),
                expected_revision=revision,
                author=request.user,
                note=attrs.get("note") or "Saved through the API",
                kubernetes_version=attrs.get("kubernetesVersion"),
                name=attrs.get("name") or None,
                source=body_source(request, attrs) if "documents" in attrs else None,
            )
        except Conflict as exc:
            raise Problem(
                409,
                f"draft {draft.pk} is at revision {exc.actual}, not {exc.expected}: someone saved "
                "it since you loaded it; nothing was written (fetch it again and reapply your edit)",
                extra={"currentRevision": exc.actual, "yourRevision": exc.expected},
            ) from exc
        except QuotaExceeded as exc:
            raise quota_problem(exc) from exc
        except DraftInputError as exc:
            raise Problem(400, str(exc)) from exc
        response = draft_response(draft)
        response.data["unchanged"] = draft.unchanged
        if draft.unchanged:
            # Nothing was stored: the same revision (and ETag) as before, and the client is told.
            response["Policyeditor-Unchanged"] = f"revision {draft.revision} kept: nothing changed"
        return response

    @extend_schema(
        operation_id="drafts_destroy",
        summary="Delete a draft",
        responses={
            204: OpenApiResponse(description="Deleted, with all its revisions."),
            403: problem("You may read this draft but not delete it."),
            404: problem("No such draft (or not yours)."),
            **AUTH_ERRORS,
        },
        tags=["drafts"],
    )
    def delete(self, request: Request, pk: int) -> Response:
        draft = get_draft_for(request.user, pk)
        if not can_delete(request.user, draft):
            raise Problem(403, "Only the owner, a team admin or staff can delete this draft.")
        try:
            # The same path as the editor's delete button: the audit log records who deleted it.
            delete_draft(request.user, draft)
        except NotAllowed as exc:
            raise Problem(403, str(exc)) from exc
        return Response(status=status.HTTP_204_NO_CONTENT)
