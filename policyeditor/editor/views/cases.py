"""The Tests tab: saved test cases run on the unsaved form, and saving Try-it inputs as a case."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_POST

from policyeditor.core.htmx import HtmxHttpRequest
from policyeditor.editor import cases, extensions
from policyeditor.editor.access import can_edit, get_draft_for
from policyeditor.editor.crds import draft_crds
from policyeditor.editor.formdata import parse_post
from policyeditor.editor.views.editing import posted_version
from policyeditor.editor.views.trying import evaluate_form, try_inputs
from policyeditor.teams.errors import WorkflowError


def _render(request: HtmxHttpRequest, draft, outcome: cases.TestsOutcome, **extra) -> HttpResponse:
    context = {"draft": draft, "tests": outcome, "can_edit": can_edit(request.user, draft)}
    context.update(extra)
    return render(request, "editor/tests_result.html", context)


@require_POST
def draft_tests(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Run the draft's saved cases against the posted form; always 200, failures inside."""
    draft = get_draft_for(request.user, pk)
    parsed = parse_post(request.POST)
    version = posted_version(request, draft)
    if parsed.problems:
        problem = "; ".join(message for _, message in parsed.problems)
        return _render(request, draft, cases.TestsOutcome(problem=f"Not run: {problem}"))
    return _render(request, draft, cases.run_current(draft, parsed.documents, version))


@require_POST
def draft_test_save(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Save the Try-it inputs and the outcome they give now as a test case, then rerun the cases."""
    draft = get_draft_for(request.user, pk)
    parsed = parse_post(request.POST)
    version = posted_version(request, draft)
    status = ""
    problem = ""
    if not can_edit(request.user, draft):
        problem = "Not saved: your role on this draft lets you view it, not change its tests."
    else:
        inputs = try_inputs(request.POST)
        outcome = evaluate_form(parsed, inputs, version, draft_crds(draft))
        if outcome.problems or outcome.result is None:
            problem = "Not saved: " + "; ".join(outcome.problems or ["nothing was evaluated"])
        else:
            problem, status = _save(request, draft, inputs, outcome.result)
    tests = (
        cases.run_current(draft, parsed.documents, version)
        if not parsed.problems
        else cases.TestsOutcome()
    )
    return _render(request, draft, tests, save_problem=problem, save_status=status)


def _save(request: HtmxHttpRequest, draft, inputs, result: dict) -> tuple[str, str]:
    """Store the case; (problem, status message)."""
    testcases = extensions.saved_cases()
    if testcases is None:
        return "Not saved: saved test cases need the review app.", ""
    try:
        case = cases.case_from_try(
            request.POST.get("case_name", ""), inputs, result, mutating=draft.kind == "MAP"
        )
        saved = testcases.save(request.user, draft, case)
    except (ValueError, WorkflowError) as exc:
        return f"Not saved: {exc}", ""
    expected = case["expect"]["result"]
    return "", f"Saved test case {saved.name!r} (expects {expected})."
