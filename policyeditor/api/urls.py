"""URLs of the REST API (namespace `api`), mounted at /api/ by policyeditor/urls.py."""

from django.contrib.auth.decorators import login_not_required
from django.urls import path, re_path
from drf_spectacular.views import SpectacularAPIView

from policyeditor.api import views_docs, views_tokens
from policyeditor.api.views_drafts import DraftDetailView, DraftListView
from policyeditor.api.views_engine import CelView, EvaluateView, ValidateView
from policyeditor.api.views_impact import (
    ImpactRunCancelView,
    ImpactRunDetailView,
    ImpactRunReportView,
    ImpactRunRowsView,
    ImpactRunStartView,
)
from policyeditor.api.views_lint import LintView, StaticManifestsView
from policyeditor.api.views_review import (
    CommentListView,
    CommentResolveView,
    ReviewListView,
    ReviewRequestView,
    TestCaseDetailView,
    TestCaseExportView,
    TestCaseListView,
    TestCaseRunView,
)
from policyeditor.api.views_revisions import ExportView, RevisionDetailView, RevisionListView

app_name = "api"

urlpatterns = [
    path("v1/validate", ValidateView.as_view(), name="validate"),
    path("v1/evaluate", EvaluateView.as_view(), name="evaluate"),
    path("v1/cel", CelView.as_view(), name="cel"),
    path("v1/lint", LintView.as_view(), name="lint"),
    path("v1/static-manifests", StaticManifestsView.as_view(), name="static_manifests"),
    path("v1/drafts", DraftListView.as_view(), name="draft_list"),
    path("v1/drafts/<int:pk>", DraftDetailView.as_view(), name="draft_detail"),
    path("v1/drafts/<int:pk>/revisions", RevisionListView.as_view(), name="revision_list"),
    path(
        "v1/drafts/<int:pk>/revisions/<int:number>",
        RevisionDetailView.as_view(),
        name="revision_detail",
    ),
    path("v1/drafts/<int:pk>/export.yaml", ExportView.as_view(), name="draft_export"),
    path("v1/drafts/<int:pk>/review-request", ReviewRequestView.as_view(), name="review_request"),
    path("v1/drafts/<int:pk>/reviews", ReviewListView.as_view(), name="review_list"),
    path("v1/drafts/<int:pk>/comments", CommentListView.as_view(), name="comment_list"),
    path(
        "v1/drafts/<int:pk>/comments/<int:comment_id>/resolve",
        CommentResolveView.as_view(),
        name="comment_resolve",
    ),
    path("v1/drafts/<int:pk>/test-cases", TestCaseListView.as_view(), name="test_case_list"),
    path("v1/drafts/<int:pk>/test-cases/run", TestCaseRunView.as_view(), name="test_case_run"),
    path(
        "v1/drafts/<int:pk>/test-cases/export",
        TestCaseExportView.as_view(),
        name="test_case_export",
    ),
    path(
        "v1/drafts/<int:pk>/test-cases/<int:case_id>",
        TestCaseDetailView.as_view(),
        name="test_case_detail",
    ),
    # The schema is public, like the docs: tools fetch it before they hold a token.
    path("v1/drafts/<int:pk>/impact-runs", ImpactRunStartView.as_view(), name="impact_run_start"),
    path("v1/impact-runs/<int:run_id>", ImpactRunDetailView.as_view(), name="impact_run"),
    path(
        "v1/impact-runs/<int:run_id>/cancel",
        ImpactRunCancelView.as_view(),
        name="impact_run_cancel",
    ),
    path("v1/impact-runs/<int:run_id>/rows", ImpactRunRowsView.as_view(), name="impact_run_rows"),
    path(
        "v1/impact-runs/<int:run_id>/report",
        ImpactRunReportView.as_view(),
        name="impact_run_report",
    ),
    path("schema/", login_not_required(SpectacularAPIView.as_view()), name="schema"),
    path("docs/", views_docs.api_docs, name="docs"),
    path("settings/tokens/", views_tokens.token_list, name="tokens"),
    path("settings/tokens/<int:pk>/revoke", views_tokens.token_revoke, name="token_revoke"),
    # Anything else under /api/ is a problem-JSON 404, not the site's HTML page.
    re_path(r"^v1/", views_docs.api_not_found),
]
