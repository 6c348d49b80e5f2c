"""The drafts list and the ways to start a draft: scratch, template gallery, YAML import."""

from __future__ import annotations

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from policyeditor.core.htmx import HtmxHttpRequest
from policyeditor.editor.access import visible_drafts
from policyeditor.editor.forms import SORTS, DraftFilterForm, ImportForm, NewDraftForm
from policyeditor.editor.quotas import QuotaExceeded
from policyeditor.editor.services import DraftInputError, create_draft
from policyeditor.editor.starters import get_starter, scratch_documents, starters

PAGE_SIZE = 20


def draft_list(request: HtmxHttpRequest) -> HttpResponse:
    """The drafts the user may see, searchable, filterable, sortable, paginated."""
    form = DraftFilterForm(request.GET or None)
    # Filtered directly (the workflow join is one-to-one, so no duplicates) and without the
    # documents, which the list never shows: at 10,000 drafts the pk__in subquery and sorting
    # rows that carry the documents JSON doubled the page time (bench/bench_app_scale.py).
    drafts = visible_drafts(request.user).select_related("owner").defer("documents", "source")
    filters = form.cleaned_data if form.is_valid() else {}
    drafts = drafts.search(filters.get("q", ""))
    if filters.get("kind"):
        drafts = drafts.filter(kind=filters["kind"])
    if filters.get("status"):
        drafts = drafts.filter(status=filters["status"])
    if filters.get("owner"):
        drafts = drafts.filter(owner__username__icontains=filters["owner"])
    chosen = filters.get("sort")
    sort = chosen if isinstance(chosen, str) and chosen in SORTS else "-updated"
    # Ties go by id in the sort's direction, so one index (walked either way) serves the whole
    # ORDER BY and the page query stops after a page of rows (the Draft.Meta indexes).
    drafts = drafts.order_by(sort, "-pk" if sort.startswith("-") else "pk")
    page = Paginator(drafts, PAGE_SIZE).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    context = {"form": form, "page": page, "query": query.urlencode()}
    template = "editor/draft_list.html#results" if request.htmx else "editor/draft_list.html"
    return render(request, template, context)


def draft_new(request: HtmxHttpRequest) -> HttpResponse:
    """Start a draft: from scratch (POST here), or links to the gallery and import."""
    form = NewDraftForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        docs = scratch_documents(data["kind"], data["name"], data["kubernetes_version"])
        try:
            draft = create_draft(
                request.user, docs, kind=data["kind"], kubernetes_version=data["kubernetes_version"]
            )
        except QuotaExceeded as exc:
            form.add_error(None, f"Not created: {exc}")
        else:
            return redirect(draft)
    context = {"form": form, "starters": starters(), "import_form": ImportForm()}
    return render(request, "editor/draft_new.html", context, status=400 if form.errors else 200)


@require_POST
def draft_from_starter(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    """A new draft copied from a gallery starter."""
    starter = get_starter(slug)
    if starter is None:
        raise Http404("No such template")
    try:
        draft = create_draft(
            request.user,
            starter.documents(),
            kind=starter.kind,
            description=starter.summary,
            note=f"From template {starter.title}",
        )
    except QuotaExceeded as exc:
        messages.error(request, f"Not created: {exc}")
        return redirect("editor:draft_new")
    messages.success(request, f"Created from the “{starter.title}” template.")
    return redirect(draft)


def draft_import(request: HtmxHttpRequest) -> HttpResponse:
    """A new draft from pasted or uploaded YAML (multi-document); errors say what is wrong."""
    form = ImportForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        try:
            draft = create_draft(
                request.user,
                form.cleaned_data["documents"],
                kubernetes_version=form.cleaned_data["kubernetes_version"],
                note="Imported",
                source=form.cleaned_data["source"],
            )
        except DraftInputError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, f"Imported {len(draft.documents)} documents.")
            return redirect(draft)
    status = 400 if form.errors else 200
    return render(request, "editor/draft_import.html", {"form": form}, status=status)
