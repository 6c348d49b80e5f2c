"""Saved test cases of a draft, and PolicyTest bundle export and import."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from policyeditor.core.htmx import HtmxHttpRequest
from policyeditor.editor.access import get_draft_for
from policyeditor.engine.manifests.loading import dump_documents
from policyeditor.review import bundle, permissions, testcases, workflow
from policyeditor.review.models import SavedTestCase
from policyeditor.review.views.common import draft_and_revision, forbidden, perform
from policyeditor.teams.roles import teams_of

MAX_UPLOAD = 5 * 1024 * 1024


@require_GET
def case_list(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The draft's saved cases with their results on the latest revision."""
    draft = get_draft_for(request.user, pk)
    latest = workflow.latest_revision(draft)
    if latest is None:  # editor.services.create_draft always stores revision 1
        raise Http404("This draft has no revision.")
    saved = list(draft.saved_test_cases.all())
    report = testcases.report_for(draft, latest, baseline=workflow.approved_revision(draft))
    runs = {run.name: run for run in report.runs}
    rows = [
        {
            "saved": case,
            "yaml": dump_documents([case.case]),
            "summary": testcases.case_summary(case.case),
            "run": runs.get(case.case.get("name")),
        }
        for case in saved
    ]
    context = {
        "draft": draft,
        "latest": latest,
        "rows": rows,
        "report": report,
        "can_edit": permissions.can_edit(request.user, draft),
        "new_case": request.session.pop("review_case_text", ""),
    }
    return render(request, "review/cases.html", context)


@require_POST
def case_save(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Add or replace a case from its YAML."""
    draft = get_draft_for(request.user, pk)
    text = request.POST.get("case", "")
    back = reverse("review:cases", args=[draft.pk])

    def action():
        try:
            case = testcases.parse_case(text)
        except workflow.WorkflowError:
            request.session["review_case_text"] = text  # keep what was typed
            raise
        return testcases.save_case(request.user, draft, case)

    return perform(request, action, success="Test case saved.", back=back)


@require_POST
def case_delete(request: HtmxHttpRequest, pk: int, case_id: int) -> HttpResponse:
    """Delete one saved case."""
    draft = get_draft_for(request.user, pk)
    saved = get_object_or_404(SavedTestCase, draft=draft, pk=case_id)
    return perform(
        request,
        lambda: testcases.delete_case(request.user, saved),
        success=f"Test case {saved.name} deleted.",
        back=reverse("review:cases", args=[draft.pk]),
    )


@require_GET
def bundle_export(request: HtmxHttpRequest, pk: int, number: int) -> HttpResponse:
    """The revision and the saved cases as a zip that `policyeditor test` runs.

    `?layout=` picks the layout: policytest (the default), kat, kaptest or kyverno.
    """
    draft, revision = draft_and_revision(request.user, pk, number)
    layout = request.GET.get("layout", "policytest")
    if layout not in bundle.LAYOUTS:
        return HttpResponse(
            f"Unknown export layout {layout!r}: one of {', '.join(bundle.LAYOUTS)}.",
            status=400,
            content_type="text/plain; charset=utf-8",
        )
    try:
        filename, data = bundle.export_bundle(request.user, draft, revision, layout)
    except workflow.NotAllowed as error:
        return forbidden(request, str(error))
    response = HttpResponse(data, content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


@require_http_methods(["GET", "POST"])
def bundle_import(request: HtmxHttpRequest) -> HttpResponse:
    """Upload a PolicyTest bundle zip to create a draft with its cases."""
    teams = teams_of(request.user)
    if request.method == "POST":
        upload = request.FILES.get("bundle")
        team = None
        if request.POST.get("team"):
            team = teams.filter(pk=_int(request.POST["team"])).first()
            if team is None:
                raise Http404("No such team")
        if upload is None:
            messages.error(request, "Choose a .zip bundle to import.")
        elif (upload.size or 0) > MAX_UPLOAD:
            messages.error(request, "The bundle is larger than 5 MiB.")
        else:
            try:
                draft = bundle.import_bundle(request.user, upload.read(), team=team)
            except workflow.NotAllowed as error:
                return forbidden(request, str(error))
            except workflow.WorkflowError as error:
                messages.error(request, str(error))
            else:
                messages.success(request, f"Imported {draft.name}.")
                return redirect("review:draft", pk=draft.pk)
    return render(request, "review/import.html", {"teams": teams})


def _int(value: str) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0
