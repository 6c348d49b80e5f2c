"""Team pages: members and roles, managed by team admins."""

# The review app mounts these views under its URL namespace (/reviews/teams/..., `review:team`),
# so reversing goes through the namespace the request came in on, never a hard-coded app.

from __future__ import annotations

from collections.abc import Callable

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from policyeditor.core.htmx import HtmxHttpRequest
from policyeditor.teams import services
from policyeditor.teams.errors import NotAllowed, WorkflowError
from policyeditor.teams.models import Role, Team
from policyeditor.teams.roles import can_manage, teams_of


def forbidden(
    request: HtmxHttpRequest, message: str, *, back: str = "", label: str = ""
) -> HttpResponse:
    """A 403 page that says why, with a link back to `back` when given."""
    context = {"message": message, "back_url": back, "back_label": label or "Back"}
    return render(request, "core/forbidden.html", context, status=403)


def perform(
    request: HtmxHttpRequest,
    action: Callable[[], object],
    *,
    success: str,
    back: str,
    refused: Callable[[HtmxHttpRequest, str], HttpResponse] | None = None,
) -> HttpResponse:
    """Run a team or workflow action; a refusal becomes a message (403 for a role problem)."""
    try:
        action()
    except NotAllowed as error:
        # The page hides what a role cannot do, so only a crafted request gets here.
        if refused is not None:
            return refused(request, str(error))
        return forbidden(request, str(error), back=back)
    except WorkflowError as error:
        messages.error(request, str(error))
        return redirect(back)
    if success:
        messages.success(request, success)
    return redirect(back)


def _team_for(user, pk: int) -> Team:
    # Like drafts: a team you are not in does not exist for you.
    if user.is_staff:
        return get_object_or_404(Team, pk=pk)
    return get_object_or_404(teams_of(user), pk=pk)


def _url(request: HtmxHttpRequest, name: str, team: Team) -> str:
    namespace = request.resolver_match.namespace if request.resolver_match else ""
    return reverse(f"{namespace}:{name}" if namespace else name, args=[team.pk])


@require_GET
def team_detail(
    request: HtmxHttpRequest, pk: int, template_name: str = "teams/team.html"
) -> HttpResponse:
    """A team's members and rules (`template_name`: the page of the app that mounts the view)."""
    team = _team_for(request.user, pk)
    context = {
        "team": team,
        "memberships": team.memberships.select_related("user"),
        "can_manage": can_manage(request.user, team),
        "roles": Role.choices,
        "member_url": _url(request, "team_member", team),
        "rules_url": _url(request, "team_rules", team),
    }
    return render(request, template_name, context)


@require_POST
def team_member(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Add a member or change a role (action=add), or remove one (action=remove)."""
    team = _team_for(request.user, pk)
    back = _url(request, "team", team)
    if not can_manage(request.user, team):
        # Refused before the username is looked up: a member who is not an admin must not learn
        # from the answer whether an account exists.
        return forbidden(request, "Only team admins manage members.", back=back)
    username = request.POST.get("username", "").strip()
    member = get_user_model().objects.filter(username=username, is_active=True).first()
    if member is None:
        # Unknown and deactivated accounts get the same answer.
        messages.error(request, f"No active user named {username!r}.")
        return redirect(back)
    if request.POST.get("action") == "remove":
        return perform(
            request,
            lambda: services.remove_member(request.user, team, member),
            success=f"{username} removed.",
            back=back,
        )
    role = request.POST.get("role", "")
    return perform(
        request,
        lambda: services.add_member(request.user, team, member, role),
        success=f"{username} is now {role} of {team.name}.",
        back=back,
    )


@require_POST
def team_rules(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Change the number of approvals a review needs."""
    team = _team_for(request.user, pk)
    count = request.POST.get("required_approvals", "")
    return perform(
        request,
        lambda: services.set_required_approvals(request.user, team, count),
        success="Team rules saved.",
        back=_url(request, "team", team),
    )
