"""Reviews waiting for me, changes on my drafts, team drafts, and the activity log."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from policyeditor.core.htmx import AuthenticatedRequest, HtmxHttpRequest
from policyeditor.review import audit, workflow
from policyeditor.review.models import Action, Notification
from policyeditor.review.permissions import visible_drafts
from policyeditor.teams.roles import teams_of


@require_GET
def inbox(request: AuthenticatedRequest) -> HttpResponse:
    """The reviews page: what waits for me, what happened on my drafts, my teams' drafts."""
    user = request.user
    notifications = (
        audit.notifications_for(user)
        .select_related("event", "event__draft")
        .order_by("read", "-created", "-pk")[:50]
    )
    context = {
        "waiting": workflow.waiting_reviews(user).select_related("owner", "workflow__team"),
        "notifications": notifications,
        "unread": audit.notifications_for(user).filter(read=False).count(),
        "team_drafts": visible_drafts(user)
        .filter(workflow__isnull=False)
        .select_related("owner", "workflow__team")
        .order_by("-updated")[:100],
        "teams": teams_of(user),
        # Personal drafts are listed so their owner can move them into a team for review.
        "personal_drafts": visible_drafts(user)
        .filter(workflow__isnull=True, owner=user)
        .order_by("-updated")[:100],
    }
    return render(request, "review/inbox.html", context)


@require_POST
def mark_read(request: AuthenticatedRequest) -> HttpResponse:
    """Mark one notification (id=N) or all of them read."""
    notifications = Notification.objects.filter(user=request.user, read=False)
    if request.POST.get("id"):
        notifications = notifications.filter(pk=_int(request.POST["id"]))
    notifications.update(read=True)
    return redirect("review:inbox")


@require_GET
def activity(request: HtmxHttpRequest) -> HttpResponse:
    """The audit log the user may read, filterable by team, draft and action."""
    teams = teams_of(request.user)
    team = teams.filter(pk=_int(request.GET.get("team", ""))).first()
    draft_id = _int(request.GET.get("draft", "")) or None
    action = request.GET.get("action", "")
    if action not in Action.values:
        action = ""
    events = audit.events_for(
        request.user, team=team, draft_id=draft_id, action=action
    ).select_related("draft")
    page = Paginator(events, 50).get_page(request.GET.get("page"))
    context = {
        "page": page,
        "teams": teams,
        "team": team,
        "draft_id": draft_id,
        "action": action,
        "actions": Action.choices,
        "pager_query": (
            f"team={team.pk if team else ''}&draft={'' if draft_id is None else draft_id}"
            f"&action={action}&"
        ),
    }
    return render(request, "review/activity.html", context)


def _int(value: str) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0
