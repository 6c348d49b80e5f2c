"""Team pages: members and roles, managed by team admins."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from policyeditor.review import teams
from policyeditor.review.models import Role, Team
from policyeditor.review.permissions import can_manage, teams_of
from policyeditor.review.views.common import perform


def _team_for(user, pk: int) -> Team:
    # Like drafts: a team you are not in does not exist for you.
    if user.is_staff:
        return get_object_or_404(Team, pk=pk)
    return get_object_or_404(teams_of(user), pk=pk)


@require_GET
def team_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """A team's members and rules."""
    team = _team_for(request.user, pk)
    context = {
        "team": team,
        "memberships": team.memberships.select_related("user"),
        "can_manage": can_manage(request.user, team),
        "roles": Role.choices,
    }
    return render(request, "review/team.html", context)


@require_POST
def team_member(request: HttpRequest, pk: int) -> HttpResponse:
    """Add a member or change a role (action=add), or remove one (action=remove)."""
    team = _team_for(request.user, pk)
    back = reverse("review:team", args=[team.pk])
    username = request.POST.get("username", "").strip()
    member = get_user_model().objects.filter(username=username).first()
    if member is None:
        messages.error(request, f"No user named {username!r}.")
        return redirect(back)
    if request.POST.get("action") == "remove":
        return perform(
            request,
            lambda: teams.remove_member(request.user, team, member),
            success=f"{username} removed.",
            back=back,
        )
    role = request.POST.get("role", "")
    return perform(
        request,
        lambda: teams.add_member(request.user, team, member, role),
        success=f"{username} is now {role} of {team.name}.",
        back=back,
    )


@require_POST
def team_rules(request: HttpRequest, pk: int) -> HttpResponse:
    """Change the number of approvals a review needs."""
    team = _team_for(request.user, pk)
    count = request.POST.get("required_approvals", "")
    return perform(
        request,
        lambda: teams.set_required_approvals(request.user, team, count),
        success="Team rules saved.",
        back=reverse("review:team", args=[team.pk]),
    )
