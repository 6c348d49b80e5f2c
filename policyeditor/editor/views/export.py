"""Export: the saved draft as YAML for `kubectl apply -f`, whole or in parts."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_GET

from policyeditor.editor.access import get_draft_for
from policyeditor.editor.models import Draft
from policyeditor.engine.manifests import dump_documents
from policyeditor.engine.versions import family

PARTS = ("all", "policy", "bindings", "params")


def select_part(draft: Draft, part: str) -> list[dict]:
    """The documents of one export part: all, the policy, its bindings, or the param objects."""
    docs = [d for d in draft.documents if isinstance(d, dict)]
    if part == "policy":
        return [d for d in docs if d.get("kind") == draft.policy_kind]
    if part == "bindings":
        return [d for d in docs if d.get("kind") == f"{draft.policy_kind}Binding"]
    if part == "params":
        return [d for d in docs if family(str(d.get("kind", ""))) is None]
    return docs


@require_GET
def draft_export(request: HttpRequest, pk: int) -> HttpResponse:
    """Download the saved documents (?part=all|policy|bindings|params) as a YAML file."""
    draft = get_draft_for(request.user, pk)
    part = request.GET.get("part", "all")
    if part not in PARTS:
        return HttpResponse(
            f"part must be one of: {', '.join(PARTS)}\n", status=400, content_type="text/plain"
        )
    text = dump_documents(select_part(draft, part))
    response = HttpResponse(text, content_type="application/yaml; charset=utf-8")
    if request.GET.get("raw") != "1":
        suffix = "" if part == "all" else f"-{part}"
        response["Content-Disposition"] = (
            f'attachment; filename="{_filename(draft.name)}{suffix}.yaml"'
        )
    return response


def _filename(name: str) -> str:
    safe = "".join(c if c.isalnum() or c in "-._" else "-" for c in name).strip("-.")
    return safe or "draft"
