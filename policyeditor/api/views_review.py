"""Review over HTTP: request a review, approve or request changes, comments, saved test cases."""

# Every change goes through policyeditor.review (workflow, comments, testcases), as the HTML views
# do, so roles, audit and notifications are the same. NotAllowed is a 403; a transition the draft's
# state forbids is a 409; a malformed comment or case is a 400.

from __future__ import annotations

import json

from django.http import Http404, HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response

from policyeditor.api.base import ApiView, envelope, revision_number
from policyeditor.api.problems import Problem
from policyeditor.api.schema import AUTH_ERRORS, problem
from policyeditor.api.serializers_drafts import DraftSerializer
from policyeditor.api.serializers_review import (
    CommentCreateSerializer,
    CommentSerializer,
    ResolveSerializer,
    ReviewCreateSerializer,
    ReviewRequestSerializer,
    ReviewSerializer,
    TestCaseSerializer,
    TestReportSerializer,
)
from policyeditor.editor.access import get_draft_for
from policyeditor.editor.models import Draft, Revision
from policyeditor.review import bundle, comments, testcases, workflow
from policyeditor.review.models import Comment, Decision, Review, SavedTestCase
from policyeditor.review.workflow import NotAllowed, WorkflowError

STATE_ERRORS = {
    403: problem("Your role does not allow this."),
    404: problem("No such draft (or not yours)."),
    409: problem("The draft's review state does not allow this now; detail says why."),
    **AUTH_ERRORS,
}
INPUT_ERRORS = {
    400: problem("The request is not valid; detail says why."),
    403: problem("Your role does not allow this."),
    404: problem("No such draft, revision or comment."),
    **AUTH_ERRORS,
}


def perform(action, *, conflict_status: int = 409):
    """Run a review service call; its refusals become 403 / `conflict_status` problems."""
    try:
        return action()
    except NotAllowed as exc:
        raise Problem(403, str(exc)) from exc
    except WorkflowError as exc:
        raise Problem(conflict_status, str(exc)) from exc


def revision_of(draft: Draft, number: int | None) -> Revision:
    """Revision `number` of the draft (the latest when None), or a 404."""
    revision = (
        workflow.latest_revision(draft)
        if number is None
        else draft.revisions.filter(number=number).first()
    )
    if revision is None:
        raise Http404(
            f"draft {draft.pk} has no revision {number if number is not None else ''}".strip()
        )
    return revision


def validated(serializer_class, request: Request):
    serializer = serializer_class(data=envelope(request.data))
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data


class ReviewRequestView(ApiView):
    """POST asks for a review of the latest revision; DELETE withdraws the request."""

    @extend_schema(
        operation_id="review_request",
        summary="Request a review",
        request=ReviewRequestSerializer,
        responses={200: DraftSerializer, **STATE_ERRORS},
        tags=["review"],
    )
    def post(self, request: Request, pk: int) -> Response:
        draft = get_draft_for(request.user, pk)
        note = validated(ReviewRequestSerializer, request).get("note", "")
        perform(lambda: workflow.request_review(request.user, draft, note=note))
        return Response(DraftSerializer(get_draft_for(request.user, pk)).data)

    @extend_schema(
        operation_id="review_withdraw",
        summary="Withdraw the review request",
        responses={200: DraftSerializer, **STATE_ERRORS},
        tags=["review"],
    )
    def delete(self, request: Request, pk: int) -> Response:
        draft = get_draft_for(request.user, pk)
        perform(lambda: workflow.withdraw_review(request.user, draft))
        return Response(DraftSerializer(get_draft_for(request.user, pk)).data)


class ReviewListView(ApiView):
    """GET the reviews of a draft; POST approves or requests changes."""

    @extend_schema(
        operation_id="reviews_list",
        summary="List reviews",
        responses={200: ReviewSerializer(many=True), 404: problem("No such draft."), **AUTH_ERRORS},
        tags=["review"],
    )
    def get(self, request: Request, pk: int) -> Response:
        draft = get_draft_for(request.user, pk)
        reviews = Review.objects.filter(draft=draft).select_related("revision", "reviewer")
        return Response(ReviewSerializer(reviews, many=True).data)

    @extend_schema(
        operation_id="reviews_create",
        summary="Approve or request changes",
        description="Reviewers of the draft's team only; nobody approves a revision they wrote.",
        request=ReviewCreateSerializer,
        responses={201: ReviewSerializer, 400: problem("Bad decision or no body."), **STATE_ERRORS},
        tags=["review"],
    )
    def post(self, request: Request, pk: int) -> Response:
        draft = get_draft_for(request.user, pk)
        attrs = validated(ReviewCreateSerializer, request)
        decide = (
            workflow.approve if attrs["decision"] == Decision.APPROVE else workflow.request_changes
        )
        review = perform(
            lambda: decide(
                request.user, draft, revision_number=attrs["revision"], body=attrs.get("body", "")
            )
        )
        return Response(ReviewSerializer(review).data, status=status.HTTP_201_CREATED)


class CommentListView(ApiView):
    """GET a draft's comments (optionally of one revision); POST adds one."""

    @extend_schema(
        operation_id="comments_list",
        summary="List comments",
        parameters=[
            OpenApiParameter("revision", int, description="Only this revision's comments.")
        ],
        responses={
            200: CommentSerializer(many=True),
            404: problem("No such draft."),
            **AUTH_ERRORS,
        },
        tags=["review"],
    )
    def get(self, request: Request, pk: int) -> Response:
        draft = get_draft_for(request.user, pk)
        items = Comment.objects.filter(draft=draft).select_related("revision", "author")
        number = request.query_params.get("revision")
        if number:
            wanted = revision_number(number)
            if wanted is None:
                raise Problem(400, f"revision must be a revision number, not {number!r}")
            items = items.filter(revision__number=wanted)
        return Response(CommentSerializer(items.order_by("created", "pk"), many=True).data)

    @extend_schema(
        operation_id="comments_create",
        summary="Comment",
        description="Every team role may comment, viewers included; @username mentions notify.",
        request=CommentCreateSerializer,
        responses={201: CommentSerializer, **INPUT_ERRORS},
        tags=["review"],
    )
    def post(self, request: Request, pk: int) -> Response:
        draft = get_draft_for(request.user, pk)
        attrs = validated(CommentCreateSerializer, request)
        revision = revision_of(draft, attrs.get("revision"))
        parent = None
        if attrs.get("parent"):
            parent = Comment.objects.filter(draft=draft, pk=attrs["parent"]).first()
            if parent is None:
                raise Http404(f"draft {draft.pk} has no comment thread {attrs['parent']}")
        comment = perform(
            lambda: comments.add_comment(
                request.user,
                draft,
                revision,
                attrs["body"],
                field_path=attrs.get("fieldPath", ""),
                document=attrs.get("document", ""),
                parent=parent,
            ),
            conflict_status=400,
        )
        return Response(CommentSerializer(comment).data, status=status.HTTP_201_CREATED)


class CommentResolveView(ApiView):
    """POST resolves or reopens a comment thread."""

    @extend_schema(
        operation_id="comments_resolve",
        summary="Resolve or reopen a thread",
        request=ResolveSerializer,
        responses={200: CommentSerializer, **INPUT_ERRORS},
        tags=["review"],
    )
    def post(self, request: Request, pk: int, comment_id: int) -> Response:
        draft = get_draft_for(request.user, pk)
        comment = (
            Comment.objects.filter(draft=draft, pk=comment_id).select_related("revision").first()
        )
        if comment is None:
            raise Http404(f"draft {draft.pk} has no comment {comment_id}")
        resolved = validated(ResolveSerializer, request)["resolved"]
        root = perform(lambda: comments.set_resolved(request.user, comment, resolved))
        return Response(CommentSerializer(root).data)


class TestCaseListView(ApiView):
    """GET a draft's saved test cases; POST adds one (or replaces the one of the same name)."""

    __test__ = False

    @extend_schema(
        operation_id="test_cases_list",
        summary="List test cases",
        responses={
            200: TestCaseSerializer(many=True),
            404: problem("No such draft."),
            **AUTH_ERRORS,
        },
        tags=["tests"],
    )
    def get(self, request: Request, pk: int) -> Response:
        draft = get_draft_for(request.user, pk)
        return Response(TestCaseSerializer(draft.saved_test_cases.order_by("name"), many=True).data)

    @extend_schema(
        operation_id="test_cases_create",
        summary="Save a test case",
        description=(
            "The body is one case of the PolicyTest format (`name`, `object`, `oldObject`, "
            "`params`, `userInfo`, `request`, `authorizer`, ..., and `expect`), as JSON or YAML."
        ),
        request={"application/json": {"type": "object", "additionalProperties": True}},
        responses={201: TestCaseSerializer, **INPUT_ERRORS},
        tags=["tests"],
    )
    def post(self, request: Request, pk: int) -> Response:
        draft = get_draft_for(request.user, pk)
        case = perform(
            lambda: testcases.parse_case(json.dumps(envelope(request.data))), conflict_status=400
        )
        saved = perform(lambda: testcases.save_case(request.user, draft, case), conflict_status=400)
        return Response(TestCaseSerializer(saved).data, status=status.HTTP_201_CREATED)


class TestCaseDetailView(ApiView):
    """DELETE one saved test case."""

    __test__ = False

    @extend_schema(
        operation_id="test_cases_destroy",
        summary="Delete a test case",
        responses={204: None, **INPUT_ERRORS},
        tags=["tests"],
    )
    def delete(self, request: Request, pk: int, case_id: int) -> Response:
        draft = get_draft_for(request.user, pk)
        saved = (
            SavedTestCase.objects.filter(draft=draft, pk=case_id).select_related("draft").first()
        )
        if saved is None:
            raise Http404(f"draft {draft.pk} has no test case {case_id}")
        perform(lambda: testcases.delete_case(request.user, saved))
        return Response(status=status.HTTP_204_NO_CONTENT)


class TestCaseRunView(ApiView):
    """POST runs every saved case on a revision (the latest by default), as `policyeditor test` does."""

    __test__ = False

    @extend_schema(
        operation_id="test_cases_run",
        summary="Run the test cases",
        parameters=[OpenApiParameter("revision", int, description="Default: the latest revision.")],
        request=None,
        responses={
            200: TestReportSerializer,
            404: problem("No such draft or revision."),
            **AUTH_ERRORS,
        },
        tags=["tests"],
    )
    def post(self, request: Request, pk: int) -> Response:
        draft = get_draft_for(request.user, pk)
        number = request.query_params.get("revision")
        wanted = revision_number(number) if number else None
        if number is not None and wanted is None:
            raise Problem(400, f"revision must be a revision number, not {number!r}")
        revision = revision_of(draft, wanted)
        report = testcases.report_for(draft, revision, baseline=workflow.approved_revision(draft))
        data = {
            "revision": revision.number,
            "baseline": report.baseline_number,
            "passed": report.passed,
            "failed": report.failed,
            "cases": [vars(run) for run in report.runs],
            "changes": [vars(change) for change in report.changes],
            "summary": report.sentences,
        }
        return Response(TestReportSerializer(data).data)


class TestCaseExportView(ApiView):
    """GET the saved cases on a revision as a zip: PolicyTest bundle, kat, kaptest or Kyverno CLI."""

    __test__ = False

    @extend_schema(
        operation_id="test_cases_export",
        summary="Export the test cases",
        parameters=[
            OpenApiParameter(
                "layout",
                str,
                enum=list(bundle.LAYOUTS),
                description="policytest (default), kat, kaptest or kyverno.",
            ),
            OpenApiParameter("revision", int, description="Default: the latest revision."),
        ],
        responses={
            (200, "application/zip"): OpenApiResponse(
                OpenApiTypes.BINARY, description="A zip that `policyeditor test` and the tool run."
            ),
            400: problem("Unknown layout or revision value."),
            404: problem("No such draft or revision."),
            **AUTH_ERRORS,
        },
        tags=["tests"],
    )
    def get(self, request: Request, pk: int) -> HttpResponse:
        draft = get_draft_for(request.user, pk)
        layout = request.query_params.get("layout", "policytest")
        if layout not in bundle.LAYOUTS:
            raise Problem(400, f"layout must be one of {', '.join(bundle.LAYOUTS)}, not {layout!r}")
        number = request.query_params.get("revision")
        wanted = revision_number(number) if number else None
        if number is not None and wanted is None:
            raise Problem(400, f"revision must be a revision number, not {number!r}")
        revision = revision_of(draft, wanted)
        filename, data = perform(
            lambda: bundle.export_bundle(request.user, draft, revision, layout)
        )
        response = HttpResponse(data, content_type="application/zip")
        response["Content-Disposition"] = f'attachment; filename="{filename}"'
        response["X-Draft-Revision"] = str(revision.number)
        return response
