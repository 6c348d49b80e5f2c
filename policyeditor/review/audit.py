"""Writing the append-only audit log and the in-app notifications that follow from it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db.models import Q, QuerySet

from policyeditor.editor.models import Draft
from policyeditor.review.models import AuditEvent, DraftWorkflow, Notification
from policyeditor.teams.models import Team
from policyeditor.teams.roles import teams_of


def _team(draft: Draft | None) -> Team | None:
    if draft is None or draft.pk is None:
        return None
    try:
        return DraftWorkflow.objects.select_related("team").get(draft_id=draft.pk).team
    except DraftWorkflow.DoesNotExist:
        return None


def record(
    action: str,
    *,
    actor=None,
    draft: Draft | None = None,
    team: Team | None = None,
    revision_number: int | None = None,
    detail: dict[str, Any] | None = None,
    notify: Iterable = (),
) -> AuditEvent:
    """Append one event and notify each user in `notify` except the actor."""
    actor = actor if getattr(actor, "is_authenticated", False) else None
    event = AuditEvent.objects.create(
        actor=actor,
        actor_name=actor.get_username() if actor else "",
        team=team or _team(draft),
        draft=draft,
        draft_ref=draft.pk if draft is not None else None,
        draft_name=draft.name if draft is not None else "",
        action=action,
        revision_number=revision_number,
        detail=detail or {},
    )
    seen = {actor.pk} if actor else set()
    rows = []
    for user in notify:
        if user is None or user.pk in seen:
            continue
        seen.add(user.pk)
        rows.append(Notification(user=user, event=event))
    Notification.objects.bulk_create(rows)
    return event


def notifications_for(user) -> QuerySet[Notification]:
    """The user's notifications about their own drafts and the teams they are still in.

    Filtered when read, not deleted when a member leaves: a removed member stops seeing the team's
    draft names at once, and sees them again if they rejoin.
    """
    notifications = Notification.objects.filter(user=user)
    if user.is_staff:
        return notifications
    return notifications.filter(
        Q(event__team__isnull=True) | Q(event__team__in=teams_of(user).values("pk"))
    )


def events_for(
    user, *, team: Team | None = None, draft_id: int | None = None, action: str = ""
) -> QuerySet[AuditEvent]:
    """Events the user may read (their teams' and their own drafts'), filtered as asked."""
    events = AuditEvent.objects.select_related("team", "actor")
    if not user.is_staff:
        events = events.filter(
            Q(team__in=teams_of(user)) | Q(team__isnull=True, draft__owner=user) | Q(actor=user)
        )
    if team is not None:
        events = events.filter(team=team)
    if draft_id is not None:
        events = events.filter(draft_ref=draft_id)
    if action:
        events = events.filter(action=action)
    return events
