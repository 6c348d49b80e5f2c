"""The Try-it tab: evaluate the draft as it is in the form against an object."""

from __future__ import annotations

import json

from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_POST

from policyeditor.core.engine_gate import EngineLimit, deadline_for, run_engine
from policyeditor.core.htmx import HtmxHttpRequest
from policyeditor.editor import live, try_store
from policyeditor.editor.access import get_draft_for
from policyeditor.editor.case_runs import try_form
from policyeditor.editor.crds import draft_crds
from policyeditor.editor.formdata import ParsedForm, parse_post
from policyeditor.editor.views.editing import posted_version
from policyeditor.engine.manifests.diff import line_class, unified_lines
from policyeditor.engine.manifests.loading import dump_documents


def _diff_lines(before: dict | None, after: dict | None) -> list[tuple[str, str]]:
    """A unified YAML diff of the input and mutated objects, as (css class, line) pairs."""
    if before is None or after is None or before == after:
        return []
    lines = unified_lines(
        dump_documents([before]), dump_documents([after]), fromfile="input", tofile="mutated"
    )
    return [(line_class(line), line) for line in lines]


def try_inputs(post) -> live.TryInputs:
    """The Try-it inputs of a posted form."""
    return live.TryInputs(
        object=post.get("try_object", ""),
        old_object=post.get("try_old_object", ""),
        params=post.get("try_params", ""),
        namespace_object=post.get("try_namespace_object", ""),
        operation=post.get("try_operation", ""),
        username=post.get("try_username", ""),
        groups=post.get("try_groups", ""),
        sub_resource=post.get("try_sub_resource", ""),
        dry_run=post.get("try_dry_run") == "on",
        authorizer=post.get("try_authorizer", ""),
        defaulting=post.get("try_no_defaulting") != "on",
    )


def evaluate_form(
    parsed: ParsedForm, inputs: live.TryInputs, version: str, crds: list[dict] | None = None
) -> live.TryOutcome:
    """The Try-it outcome of the form, evaluated in the isolation pool with a deadline."""
    problems = [message for _, message in parsed.problems]
    if problems:
        return live.TryOutcome(problems=problems)
    crds = crds or []
    try:
        return run_engine(
            try_form,
            parsed.documents,
            inputs,
            version,
            crds,
            timeout=deadline_for([*parsed.documents, *crds]),
        )
    except EngineLimit as exc:
        return live.TryOutcome(problems=[exc.message])


@require_POST
def draft_try(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Evaluate the posted documents against the posted Try-it inputs; always 200."""
    draft = get_draft_for(request.user, pk)
    try_store.remember(draft, request.user, request.POST)
    parsed = parse_post(request.POST)
    version = posted_version(request, draft)
    outcome = evaluate_form(parsed, try_inputs(request.POST), version, draft_crds(draft))
    return render(request, "editor/try_result.html", result_context(draft, outcome))


def evaluate_documents(
    documents: list[dict], inputs: live.TryInputs, version: str, crds: list[dict] | None = None
) -> live.TryOutcome:
    """The Try-it outcome of saved documents (a shared revision), in the isolation pool."""
    crds = crds or []
    try:
        return run_engine(
            try_form, documents, inputs, version, crds, timeout=deadline_for([*documents, *crds])
        )
    except EngineLimit as exc:
        return live.TryOutcome(problems=[exc.message])


def stored_inputs(kept: dict) -> live.TryInputs:
    """Try-it inputs kept as stored (try_store.inputs_of), checkboxes as booleans."""
    post = {k: v for k, v in kept.items() if isinstance(v, str)}
    post.update({k: "on" for k, v in kept.items() if v is True})
    return try_inputs(post)


def result_context(draft, outcome: live.TryOutcome) -> dict:
    """What try_result.html shows of an outcome."""
    result = outcome.result or {}
    mutated = result.get("object")
    return {
        "draft": draft,
        "outcome": outcome,
        "result": result,
        "mutated_yaml": dump_documents([mutated])
        if draft.kind == "MAP" and isinstance(mutated, dict)
        else "",
        "diff": _diff_lines(outcome.input_object, mutated) if draft.kind == "MAP" else [],
        "result_json": json.dumps(result, indent=2) if result else "",
    }
