"""The schema library page of a team: its CRDs, its versions, and the import form."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_http_methods

from policyeditor.core.htmx import HtmxHttpRequest
from policyeditor.schemalib import services
from policyeditor.schemalib.models import LibraryVersion
from policyeditor.teams.models import Role, Team
from policyeditor.teams.roles import has_role, teams_of

# What one upload may be: the API server's request body limit.
MAX_UPLOAD_BYTES = 3 * 1024 * 1024


def _team_for(user, pk: int) -> Team:
    # Like drafts: a team you are not in does not exist for you.
    if user.is_staff:
        return get_object_or_404(Team, pk=pk)
    return get_object_or_404(teams_of(user), pk=pk)


def _import_text(request: HtmxHttpRequest) -> tuple[str | bytes, str]:
    """The posted CRDs: the uploaded file when there is one, else the pasted text."""
    upload = request.FILES.get("file")
    if upload is not None:
        if upload.size is not None and upload.size > MAX_UPLOAD_BYTES:
            raise services.ImportRefused(
                f"input too large: {upload.size} bytes (the API server accepts at most "
                f"{MAX_UPLOAD_BYTES} bytes, 3 MiB)"
            )
        return upload.read(MAX_UPLOAD_BYTES + 1), upload.name or "upload"
    return request.POST.get("text", ""), "pasted text"


@login_required
@require_http_methods(["GET", "POST"])
def library(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """GET: the team's CRDs; POST: import pasted or uploaded CRDs (authors and above)."""
    team = _team_for(request.user, pk)
    can_import = request.user.is_staff or has_role(request.user, team, Role.AUTHOR)
    error = ""
    imported = None
    status = 200
    if request.method == "POST":
        if not can_import:
            error, status = "Your role in this team is read-only.", 403
        else:
            try:
                text, source = _import_text(request)
                imported = services.import_crds(team, request.user, text, source)
            except services.ImportRefused as exc:
                error, status = str(exc), 400
    context = {
        "team": team,
        "current": services.latest(team),
        "versions": LibraryVersion.objects.filter(team=team).select_related("created_by")[:50],
        "can_import": can_import,
        "error": error,
        "imported": imported,
    }
    template = "schemalib/library_body.html" if request.htmx else "schemalib/library.html"
    return render(request, template, context, status=status if not request.htmx else 200)
