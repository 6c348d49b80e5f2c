"""A draft's review bookkeeping, the reviewers' decisions and the comments on its revisions."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.urls import reverse

from policyeditor.editor.models import Draft, Revision
from policyeditor.teams.models import Team


class DraftWorkflow(models.Model):
    """A draft's team and review bookkeeping; the state itself is `Draft.status`."""

    draft = models.OneToOneField(Draft, on_delete=models.CASCADE, related_name="workflow")
    team = models.ForeignKey(Team, on_delete=models.PROTECT, related_name="workflows")
    # The revision that was last approved: exportable and marked as such after later edits.
    approved_revision = models.ForeignKey(
        Revision, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    review_requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    review_requested_at = models.DateTimeField(null=True, blank=True)
    # A pending request to move the draft out of its team; the team's admin approves or declines.
    move_to = models.ForeignKey(
        Team, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    move_requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    move_requested_at = models.DateTimeField(null=True, blank=True)
    updated = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.draft} ({self.team})"


class Decision(models.TextChoices):
    """What a reviewer decided about one revision."""

    APPROVE = "approve", "Approved"
    REQUEST_CHANGES = "request_changes", "Changes requested"


class Review(models.Model):
    """One reviewer's decision on one revision."""

    draft = models.ForeignKey(Draft, on_delete=models.CASCADE, related_name="reviews")
    revision = models.ForeignKey(Revision, on_delete=models.CASCADE, related_name="reviews")
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    decision = models.CharField(max_length=20, choices=Decision.choices)
    body = models.TextField(blank=True)
    # Set when the draft left the team whose reviewer decided: the decision no longer counts.
    withdrawn = models.BooleanField(default=False)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created", "-pk"]

    def __str__(self) -> str:
        return f"{self.reviewer} {self.get_decision_display().lower()} r{self.revision.number}"


class Comment(models.Model):
    """A remark on a revision as a whole or on one field; replies point at the thread's root."""

    draft = models.ForeignKey(Draft, on_delete=models.CASCADE, related_name="comments")
    revision = models.ForeignKey(Revision, on_delete=models.CASCADE, related_name="comments")
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    # Which document (e.g. "ValidatingAdmissionPolicy/replica-limit") and field, both optional.
    document = models.CharField(max_length=300, blank=True)
    field_path = models.CharField(max_length=300, blank=True)
    body = models.TextField()
    parent = models.ForeignKey(
        "self", on_delete=models.CASCADE, null=True, blank=True, related_name="replies"
    )
    resolved = models.BooleanField(default=False)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    resolved_at = models.DateTimeField(null=True, blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created", "pk"]

    def __str__(self) -> str:
        where = f" at {self.field_path}" if self.field_path else ""
        return f"comment by {self.author} on r{self.revision.number}{where}"

    def get_absolute_url(self) -> str:
        url = reverse("review:revision", args=[self.draft_id, self.revision.number])
        return f"{url}#comment-{self.pk}"
