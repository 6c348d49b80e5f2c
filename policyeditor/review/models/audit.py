"""The audit log: who did what to which draft, never changed, and the notifications it sends."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from policyeditor.core.models import WriteOnce
from policyeditor.editor.models import Draft
from policyeditor.teams.models import Team


class Action(models.TextChoices):
    """What an audit event records."""

    CREATED = "created", "created the draft"
    EDITED = "edited", "saved a revision"
    TEAM_ASSIGNED = "team_assigned", "moved the draft to a team"
    MOVED_OUT = "moved_out", "moved the draft out of the team"
    MOVE_REQUESTED = "move_requested", "asked to move the draft out of the team"
    MOVE_DECLINED = "move_declined", "declined moving the draft out of the team"
    REVIEW_REQUESTED = "review_requested", "requested review"
    REVIEW_WITHDRAWN = "review_withdrawn", "withdrew the review request"
    APPROVED = "approved", "approved"
    CHANGES_REQUESTED = "changes_requested", "requested changes"
    COMMENTED = "commented", "commented"
    RESOLVED = "resolved", "resolved a thread"
    UNRESOLVED = "unresolved", "reopened a thread"
    EXPORTED = "exported", "exported"
    SHARED = "shared", "created a share link"
    SHARE_REVOKED = "share_revoked", "revoked a share link"
    TESTS_CHANGED = "tests_changed", "changed the saved test cases"
    IMPORTED = "imported", "imported a bundle"
    IMPACT_ANALYSED = "impact_analysed", "ran an impact analysis"
    IMPACT_CANCELLED = "impact_cancelled", "cancelled an impact analysis"
    DELETED = "deleted", "deleted the draft"
    MEMBER_ADDED = "member_added", "added a member"
    MEMBER_REMOVED = "member_removed", "removed a member"
    TEAM_CHANGED = "team_changed", "changed the team's rules"


class AppendOnlyQuerySet(models.QuerySet):
    """Audit events are evidence: bulk updates and deletes are refused."""

    def update(self, **kwargs):
        raise ValueError("audit events are append-only")

    def delete(self):
        raise ValueError("audit events are append-only")

    def for_team(self, team) -> AppendOnlyQuerySet:
        """Events of one team."""
        return self.filter(team=team)

    def for_draft(self, draft_id: int) -> AppendOnlyQuerySet:
        """Events of one draft, still found after the draft is deleted."""
        return self.filter(draft_ref=draft_id)


class AuditEvent(WriteOnce):
    """Who did what to which draft, when; never changed after it is written."""

    write_once_error = "audit events are append-only"

    created = models.DateTimeField(auto_now_add=True, db_index=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # Names are copied so the record still reads right after a user or draft is deleted.
    actor_name = models.CharField(max_length=150, blank=True)
    team = models.ForeignKey(
        Team, on_delete=models.SET_NULL, null=True, blank=True, related_name="events"
    )
    draft = models.ForeignKey(
        Draft, on_delete=models.SET_NULL, null=True, blank=True, related_name="events"
    )
    draft_ref = models.PositiveBigIntegerField(null=True, blank=True, db_index=True)
    draft_name = models.CharField(max_length=253, blank=True)
    action = models.CharField(max_length=20, choices=Action.choices)
    revision_number = models.PositiveIntegerField(null=True, blank=True)
    detail = models.JSONField(default=dict, blank=True)

    objects = AppendOnlyQuerySet.as_manager()

    class Meta:
        ordering = ["-created", "-pk"]

    def __str__(self) -> str:
        return f"{self.actor_name or 'system'} {self.get_action_display()} {self.draft_name}"


class Notification(models.Model):
    """One audit event shown to one user ("changes on my drafts", mentions, review requests)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="review_notifications"
    )
    event = models.ForeignKey(AuditEvent, on_delete=models.CASCADE, related_name="notifications")
    read = models.BooleanField(default=False)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created", "-pk"]
        indexes = [models.Index(fields=["user", "read"])]

    def __str__(self) -> str:
        return f"{self.user}: {self.event}"
