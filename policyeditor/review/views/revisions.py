"""The review page of a draft: one revision, its diff against another, threads and decisions."""

from __future__ import annotations

import contextlib

from django.core.paginator import Paginator
from django.db.models import Q
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET

from policyeditor.core.htmx import HtmxHttpRequest
from policyeditor.editor.access import get_draft_for
from policyeditor.editor.models import Draft, Revision, Status
from policyeditor.engine.manifests.loading import dump_documents
from policyeditor.review import comments, permissions, testcases, workflow
from policyeditor.review.diff_cache import revision_diff
from policyeditor.review.diffs import document_label
from policyeditor.review.models import Review, ShareLink
from policyeditor.review.permissions import team_of
from policyeditor.review.views.common import draft_and_revision, safe_filename
from policyeditor.teams.roles import can_manage, teams_of

# The review page lists this many of the newest revisions (plus the one shown, the approved one
# and the baseline); the history page has them all. Rendering every revision made the page's time
# grow with the history (bench/bench_app_scale.py).
RECENT_REVISIONS = 10
HISTORY_PAGE_SIZE = 50


def revision_url(draft: Draft, number: int, **query: str) -> str:
    """The review page of one revision, with optional query parameters."""
    url = reverse("review:revision", args=[draft.pk, number])
    if query:
        from urllib.parse import urlencode

        url += "?" + urlencode(query)
    return url


@require_GET
def draft_review(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The review page of the draft's latest revision."""
    draft = get_draft_for(request.user, pk)
    latest = workflow.latest_revision(draft)
    if latest is None:
        raise Http404("This draft has no revision")
    return redirect(revision_url(draft, latest.number))


def _baseline(request: HtmxHttpRequest, draft: Draft, revision: Revision) -> Revision | None:
    """The revision to compare against: ?against=N, else the approved one, else the previous one."""
    against = request.GET.get("against", "")
    if against == "none":
        return None
    if against:
        try:
            return draft.revisions.get(number=int(against))
        except (Revision.DoesNotExist, ValueError, OverflowError):
            return None
    approved = workflow.approved_revision(draft)
    if approved is not None and approved.pk != revision.pk:
        return approved
    return draft.revisions.filter(number__lt=revision.number).order_by("-number").first()


@require_GET
def revision_page(request: HtmxHttpRequest, pk: int, number: int) -> HttpResponse:
    """One revision: YAML, diff (side by side or unified), test results, threads, decisions."""
    draft, revision = draft_and_revision(request.user, pk, number)
    user = request.user
    baseline = _baseline(request, draft, revision)
    view = "unified" if request.GET.get("view") == "unified" else "split"
    diff = None
    if baseline is not None:
        diff = revision_diff(baseline, revision)
    approved = workflow.approved_revision(draft)
    latest = workflow.latest_revision(draft)
    is_latest = latest is not None and latest.pk == revision.pk
    recent, older_hidden = recent_revisions(draft, latest, [revision, approved, baseline])
    can_review = permissions.can_review(user, draft)
    in_review = draft.status == Status.IN_REVIEW
    threads = comments.threads_for(draft)
    team = team_of(draft)
    context = {
        "draft": draft,
        "revision": revision,
        "revisions": recent,
        "older_revisions_hidden": older_hidden,
        "team": team,
        "teams": teams_of(user),
        "can_manage_team": team is not None and can_manage(user, team),
        "approved": approved,
        "is_latest": is_latest,
        "baseline": baseline,
        "diff": diff,
        "view": view,
        # The YAML as written: what export returns, byte for byte.
        "yaml": revision.source or dump_documents(revision.documents),
        "document_labels": [document_label(d, i) for i, d in enumerate(revision.documents)],
        "threads": [t for t in threads if t.root.revision_id == revision.pk],
        "other_threads": [
            t for t in threads if t.root.revision_id != revision.pk and not t.resolved
        ],
        "members": comments.member_usernames(draft),
        "field_paths": comments.field_paths(revision.documents),
        "reviews": Review.objects.filter(draft=draft).select_related("reviewer", "revision"),
        "approvals": workflow.approvals(draft, revision).select_related("reviewer"),
        "can_edit": permissions.can_edit(user, draft),
        "can_comment": permissions.can_comment(user, draft),
        "can_review": can_review,
        "can_decide": can_review and in_review and is_latest,
        "own_revision": revision.author_id == user.pk,
        "share_links": ShareLink.objects.filter(revision=revision).select_related("created_by"),
        # Outcomes compare with the same revision as the diff: the approved one by default.
        "tests": testcases.report_for(draft, revision, baseline=baseline),
        "query_against": request.GET.get("against", ""),
    }
    return render(request, "review/revision.html", context)


def recent_revisions(
    draft: Draft, latest: Revision | None, pinned: list[Revision | None]
) -> tuple[list[Revision], bool]:
    """The newest revisions plus `pinned` ones, newest first, in one query; whether older exist."""
    cutoff = latest.number - RECENT_REVISIONS if latest is not None else 0
    pks = [r.pk for r in pinned if r is not None]
    rows = (
        draft.revisions.filter(Q(number__gt=cutoff) | Q(pk__in=pks))
        .select_related("author")
        .defer("documents", "source")  # the lists show numbers, authors and notes only
        .order_by("-number")
    )
    # Numbers run from 1 without gaps (save_draft adds one, revisions are never deleted alone).
    return list(rows), cutoff > 0


@require_GET
def revision_history(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Every revision of a draft, newest first, paginated, each comparable with `?compare=N`."""
    draft = get_draft_for(request.user, pk)
    revisions = (
        draft.revisions.select_related("author").defer("documents", "source").order_by("-number")
    )
    page = Paginator(revisions, HISTORY_PAGE_SIZE).get_page(request.GET.get("page"))
    # The revision whose page linked here (default the latest): each row offers its diff against it.
    compare = None
    with contextlib.suppress(KeyError, ValueError, OverflowError):
        number = int(request.GET["compare"])
        compare = draft.revisions.defer("documents", "source").filter(number=number).first()
    if compare is None:
        compare = revisions.first()
    context = {
        "draft": draft,
        "page": page,
        "compare": compare,
        "approved": workflow.approved_revision(draft),
        "pager_query": f"compare={compare.number if compare else ''}&",
    }
    return render(request, "review/history.html", context)


@require_GET
def revision_download(request: HtmxHttpRequest, pk: int, number: int) -> HttpResponse:
    """The revision as a YAML file, exactly the text shown on its page."""
    draft, revision = draft_and_revision(request.user, pk, number)
    text = workflow.export_revision(request.user, draft, revision)
    return _yaml_response(text, f"{safe_filename(draft.name)}-r{revision.number}.yaml")


@require_GET
def approved_download(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The last approved revision as a YAML file (404 before any approval)."""
    draft = get_draft_for(request.user, pk)
    try:
        revision, text = workflow.export_approved(request.user, draft)
    except workflow.WorkflowError as error:
        raise Http404(str(error)) from error
    return _yaml_response(text, f"{safe_filename(draft.name)}-approved-r{revision.number}.yaml")


def _yaml_response(text: str, filename: str) -> HttpResponse:
    response = HttpResponse(text.encode("utf-8"), content_type="application/yaml; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
