"""The editor page and its HTMX endpoints: live validation, rows, YAML to form, save."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.http import Http404, HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.urls import NoReverseMatch, reverse
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import reswap, trigger_client_event

from policyeditor.core.engine_gate import EngineLimit, deadline_for, start_engine
from policyeditor.core.htmx import HtmxHttpRequest
from policyeditor.editor import autosaves, live, try_store
from policyeditor.editor.access import can_edit, get_draft_for
from policyeditor.editor.case_runs import validate_form as validate_form_call
from policyeditor.editor.completion import matched_gvk
from policyeditor.editor.crds import draft_layer
from policyeditor.editor.formdata import (
    ParsedForm,
    bind_documents,
    bind_row,
    new_id,
    parse_post,
)
from policyeditor.editor.formspec import find_field
from policyeditor.editor.models import Draft
from policyeditor.editor.reviewing import (
    comment_url,
    field_comments,
    review_state,
    share_try_url,
)
from policyeditor.editor.samples import sample_namespace, sample_object
from policyeditor.editor.services import Conflict, DraftInputError, save_draft
from policyeditor.editor.yamlassist import diagnostics, readable
from policyeditor.engine import schemas
from policyeditor.engine.errors import InputError
from policyeditor.engine.manifests.loading import dump_documents, load_documents, load_json_value
from policyeditor.engine.manifests.roundtrip import update_source
from policyeditor.engine.objects import name_of
from policyeditor.engine.versions import KUBERNETES_VERSIONS, normalize_version


def posted_version(request: HtmxHttpRequest, draft: Draft) -> str:
    """The target version posted by the form, else the draft's."""
    try:
        return normalize_version(request.POST.get("kubernetes_version") or draft.kubernetes_version)
    except ValueError:
        return draft.kubernetes_version


def posted_static(request: HtmxHttpRequest, draft: Draft) -> bool:
    """Whether the posted editor form targets static manifests, else the draft's setting."""
    if "kubernetes_version" in request.POST:  # the editor form: an unchecked box is not posted
        return request.POST.get("static_manifests") == "on"
    return draft.static_manifests


def _resources(version: str) -> list[dict]:
    """The resources for the picker (built-in, then the draft's CRDs): plural, kind, scope."""
    by_plural: dict[str, dict] = {}
    for info in schemas.all_resources(version):
        item = by_plural.setdefault(
            info.plural,
            {
                "plural": info.plural,
                "kind": info.kind,
                "groups": [],
                "versions": [],
                "scopes": set(),
            },
        )
        if info.group not in item["groups"]:
            item["groups"].append(info.group)
        if info.version not in item["versions"]:
            item["versions"].append(info.version)
        item["scopes"].add("Namespaced" if info.namespaced else "Cluster")
    found = []
    for plural in sorted(by_plural):
        item = by_plural[plural]
        groups = ", ".join(g or '""' for g in item["groups"])
        scope = "/".join(sorted(item["scopes"]))
        item["label"] = f"{item['kind']} ({groups}; {', '.join(item['versions'])}; {scope})"
        item["group"] = item["groups"][0] if len(item["groups"]) == 1 else None
        item["version"] = item["versions"][-1] if len(item["groups"]) == 1 else None
        found.append(item)
    return found


def start_validation(
    parsed: ParsedForm, version: str, static: bool = False, crds: list[dict] | None = None
) -> Callable[[], live.Report]:
    """Start live validation of the form in the isolation pool; the returned call collects it.

    It must always be called; a runaway check becomes an error in the report. `crds` are the
    draft's CRDs (its team's schema library).
    """
    crds = crds or []
    collect = start_engine(
        validate_form_call,
        parsed,
        version,
        static,
        crds,
        timeout=deadline_for([*parsed.documents, *crds]),
    )

    def report() -> live.Report:
        try:
            return collect()
        except EngineLimit as exc:
            failed = live.Report(version)
            failed.errors.append(live.Issue(-1, "", exc.message))
            return failed

    return report


def base_source(request: HtmxHttpRequest, draft: Draft) -> str:
    """The YAML the form's documents are written into: the YAML editor's text, else the draft's."""
    # Browsers send a textarea's line breaks as CRLF (HTML's form submission rules).
    text = request.POST.get("yaml", "").replace("\r\n", "\n")
    return text if text.strip() and readable(text) else draft.source


def _live_context(
    draft: Draft,
    parsed: ParsedForm,
    version: str,
    static: bool = False,
    base: str = "",
    user: Any = None,
) -> dict:
    with draft_layer(draft) as crds:
        report = start_validation(parsed, version, static, crds)
        try:
            # Done while a worker validates: the preview's YAML costs as much as the check.
            # It is the YAML as written, changed only where the form changed it.
            yaml = update_source(base or draft.source, parsed.documents)
            gvk = "/".join(matched_gvk(parsed.documents, version))
            comments = field_comments(draft, user) if user is not None else []
        finally:
            validated = report()  # always collected: it gives the worker back to the pool
    for comment in comments:
        comment.target = parsed.target_for(comment.doc_index, comment.path)
    return {
        "yaml_diagnostics": json.dumps(diagnostics(validated, yaml)),
        "draft": draft,
        "report": validated,
        "version": version,
        "documents_json": json.dumps(parsed.documents),
        "gvk": gvk,
        "yaml": yaml,
        "comments": comments,
        # Try it's sample follows the match rules as they are edited (while it is untouched).
        "sample_object": dump_documents([sample_object(parsed.documents, version)]),
    }


# Try-it inputs another page chose (an impact run's row), per draft: shown once, then forgotten.
TRY_INPUTS_SESSION_KEY = "editor-try-inputs"


def _page_context(draft: Draft, documents: list[dict], version: str) -> dict:
    with draft_layer(draft):
        return _page_values(draft, documents, version)


def _page_values(draft: Draft, documents: list[dict], version: str) -> dict:
    bound = bind_documents(documents)
    return {
        "draft": draft,
        "documents": bound,
        "versions": KUBERNETES_VERSIONS,
        "operations": ("CREATE", "UPDATE", "DELETE", "CONNECT"),
        "version": version,
        "resources": _resources(version),
        "sample_object": dump_documents([sample_object(documents, version)]),
        "sample_namespace": dump_documents([sample_namespace(documents)]),
        "yaml": update_source(draft.source, documents),
        "documents_json": json.dumps(documents),
        "gvk": "/".join(matched_gvk(documents, version)),
    }


def _export_urls(request: HtmxHttpRequest, draft: Draft) -> dict:
    """The token-authenticated raw YAML URL (the API's, when installed) and the tokens page."""
    try:
        raw = reverse("api:draft_export", args=[draft.pk])
        tokens = reverse("api:tokens")
    except NoReverseMatch:
        raw, tokens = reverse("editor:draft_export", args=[draft.pk]) + "?raw=1", "#"
    return {"raw_url": request.build_absolute_uri(raw), "tokens_url": tokens}


def draft_edit(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The editor page for one draft."""
    draft = get_draft_for(request.user, pk)
    context = _page_context(draft, draft.documents, draft.kubernetes_version)
    chosen = request.session.pop(f"{TRY_INPUTS_SESSION_KEY}:{draft.pk}", None)
    context["can_edit"] = can_edit(request.user, draft)
    if context["can_edit"]:
        kept = autosaves.pending(draft, request.user)
        context.update(autosave=kept, autosave_json=json.dumps(kept.documents) if kept else "")
    context["review"] = review_state(draft)
    context.update(_export_urls(request, draft))
    context["try_values"] = try_values(context, try_store.recall(draft, request.user))
    if isinstance(chosen, dict):
        # The chosen inputs beat kept ones, and the object is not the sample that follows the
        # match rules.
        context["try_values"].update(
            {key: str(value) for key, value in chosen.items() if key.startswith("try_")}
        )
    context["share_try_url"] = share_try_url(draft)
    context["comment_url"] = comment_url(draft, request.user)
    return render(request, "editor/draft_edit.html", context)


def try_values(context: dict, kept: dict) -> dict:
    """The Try-it form's values: the user's kept inputs, else samples for this draft."""
    values = {
        "try_object": context["sample_object"],
        "try_namespace_object": context["sample_namespace"],
    }
    values.update({k: v for k, v in kept.items() if k.startswith("try_")})
    return values


@require_POST
def draft_validate(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Live validation of the posted form: always 200, errors inside the fragment."""
    # The posted form is what gets validated: the stored documents are not read.
    draft = get_draft_for(request.user, pk, documents=False)
    parsed = parse_post(request.POST)
    version = posted_version(request, draft)
    static = posted_static(request, draft)
    context = _live_context(
        draft, parsed, version, static, base_source(request, draft), user=request.user
    )
    return render(request, "editor/live.html", context)


@require_GET
def draft_row(request: HtmxHttpRequest) -> HttpResponse:
    """A blank row for a rows control (added without a page reload)."""
    kind, key, name = (request.GET.get(k, "") for k in ("kind", "key", "name"))
    spec = find_field(kind, key)
    if spec is None or spec.widget != "rows" or not name:
        raise Http404("No such list")
    row = bind_row(spec, {}, name, kind, key)
    return render(
        request, "editor/fields/row.html", {"row": row, "bf": {"name": name, "field": spec}}
    )


@require_POST
def draft_form(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Rebuild the form from YAML text or a documents JSON (YAML mode, restoring autosave)."""
    draft = get_draft_for(request.user, pk)
    problem = ""
    documents: list[dict] = []
    if "documents" in request.POST:
        try:
            documents = load_json_value(request.POST["documents"], source="The saved browser state")
        except InputError as exc:
            problem = str(exc)
        if not isinstance(documents, list) or not all(isinstance(d, dict) for d in documents):
            problem, documents = problem or "The saved browser state is not a list of objects.", []
    else:
        try:
            documents = load_documents(request.POST.get("yaml", ""), source="YAML")
        except InputError as exc:
            problem = str(exc)
    if problem:
        response = render(request, "editor/yaml_problem.html", {"problem": problem})
        # Keep the form as it is: the YAML text stays in its editor until it reads.
        return reswap(response, "none")
    return render(
        request,
        "editor/documents.html",
        {"documents": bind_documents(documents), "draft": draft, "yaml_ok": True},
    )


@require_POST
def draft_add_document(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """A new binding or param object section appended to the form."""
    draft = get_draft_for(request.user, pk)
    what = request.POST.get("what", "binding")
    policy = draft.policy_document() or {}
    # Stored documents may hold anything the API accepted: read them by type.
    policy_name = name_of(policy) or draft.name
    api = policy.get("apiVersion")
    api = api if isinstance(api, str) and api else draft.api_version
    if what == "binding":
        doc: dict[str, Any] = {
            "apiVersion": api,
            "kind": f"{draft.policy_kind}Binding",
            "metadata": {"name": f"{policy_name}-binding-{new_id('')}"},
            "spec": {"policyName": policy_name},
        }
        if draft.kind == "VAP":
            doc["spec"]["validationActions"] = ["Deny"]
    elif what == "params":
        spec = policy.get("spec")
        kind = spec.get("paramKind") if isinstance(spec, dict) else None
        kind = kind if isinstance(kind, dict) else {}
        param_api, param_kind = kind.get("apiVersion"), kind.get("kind")
        doc = {
            "apiVersion": param_api if isinstance(param_api, str) and param_api else "v1",
            "kind": param_kind if isinstance(param_kind, str) and param_kind else "ConfigMap",
            "metadata": {"name": "params", "namespace": "default"},
        }
    else:
        return HttpResponseBadRequest("what must be binding or params")
    bound = bind_documents([doc])[0]
    return render(request, "editor/fields/document.html", {"doc": bound, "removable": True})


@require_POST
def draft_save(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Save the form as a new revision, or explain the conflict (nothing is overwritten)."""
    draft = get_draft_for(request.user, pk)
    parsed = parse_post(request.POST)
    version = posted_version(request, draft)
    context: dict[str, Any] = {"draft": draft, "conflict": None, "problem": "", "saved": False}
    if not can_edit(request.user, draft):
        context["problem"] = "Not saved: your role on this draft lets you view it, not save it."
        return render(
            request, "editor/save_status.html", context, status=200 if request.htmx else 403
        )
    try:
        expected = int(request.POST.get("expected_revision", ""))
    except ValueError:
        expected = -1
    if parsed.problems:
        context["problem"] = "Not saved: " + "; ".join(message for _, message in parsed.problems)
    else:
        try:
            draft = save_draft(
                draft,
                parsed.documents,
                expected_revision=expected,
                author=request.user,
                note=request.POST.get("note", ""),
                kubernetes_version=version,
                source=update_source(base_source(request, draft), parsed.documents),
            )
            static = posted_static(request, draft)
            if static != draft.static_manifests:
                # A setting of the draft, not of a revision: no new revision for it alone.
                Draft.objects.filter(pk=draft.pk).update(static_manifests=static)
                draft.static_manifests = static
            context.update(draft=draft, saved=not draft.unchanged, unchanged=draft.unchanged)
            context.update(_export_urls(request, draft), review=review_state(draft))
            autosaves.discard(draft, request.user)
        except Conflict as exc:
            context["conflict"] = exc
        except DraftInputError as exc:
            context["problem"] = f"Not saved: {exc}"
    status = 409 if context["conflict"] and not request.htmx else 200
    if not request.htmx:
        if context.get("unchanged"):
            messages.info(
                request, f"No changes to save: revision {draft.revision} is kept as it is."
            )
            return redirect(draft)
        if context["saved"]:
            return redirect(draft)
        page = _page_context(draft, parsed.documents, version)
        page.update(context, can_edit=True, review=review_state(draft))
        page.update(_export_urls(request, draft))
        page["try_values"] = try_values(page, try_store.recall(draft, request.user))
        return render(request, "editor/draft_edit.html", page, status=status)
    response = render(request, "editor/save_status.html", context, status=status)
    if context["saved"]:
        # editor.js listens for it to clear the unsaved-changes mark.
        trigger_client_event(response, "editor:saved")
    return response
