"""Review state of drafts, reviews, comments, audit events, share links, test cases."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from django.conf import settings
from django.core.files.storage import FileSystemStorage
from django.db import models
from django.urls import reverse

from policyeditor.core.fields import OrderedJSONField
from policyeditor.core.models import WriteOnce
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


def _new_token() -> str:
    # Short enough to read out or paste in a chat, still 96 random bits.
    return secrets.token_urlsafe(12)


class ShareLink(models.Model):
    """A read-only link to one revision for team members; revocable."""

    token = models.CharField(max_length=64, unique=True, default=_new_token)
    revision = models.ForeignKey(Revision, on_delete=models.CASCADE, related_name="share_links")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created = models.DateTimeField(auto_now_add=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    # The Try-it inputs shared with the revision (the editor's try_* fields), empty for a plain link.
    try_inputs = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-created", "-pk"]

    def __str__(self) -> str:
        return f"share link to {self.revision}"

    def get_absolute_url(self) -> str:
        return reverse("review:shared", args=[self.token])

    @property
    def revoked(self) -> bool:
        """Whether the link no longer opens."""
        return self.revoked_at is not None


class SavedTestCase(models.Model):
    """One test case of a draft, a case mapping of the PolicyTest format (inputs plus `expect`)."""

    draft = models.ForeignKey(Draft, on_delete=models.CASCADE, related_name="saved_test_cases")
    name = models.CharField(max_length=200)
    case = OrderedJSONField(default=dict)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["draft", "name"]
        constraints = [
            models.UniqueConstraint(fields=["draft", "name"], name="saved_test_case_name_unique")
        ]

    def __str__(self) -> str:
        return self.name


class ImpactStorage(FileSystemStorage):
    """Uploaded dumps and their chunk files: POLICYEDITOR_IMPACT_DIR, else DATA_DIR/impact (not media)."""

    @property
    def base_location(self) -> str:
        folder = getattr(settings, "POLICYEDITOR_IMPACT_DIR", None)
        return str(folder or Path(settings.DATA_DIR) / "impact")

    @property
    def location(self) -> str:
        return os.path.abspath(self.base_location)


def impact_storage() -> ImpactStorage:
    """The storage of impact dumps (read from the settings at each use)."""
    return ImpactStorage()


class ImpactRun(models.Model):
    """One impact analysis: a dump of cluster objects run through a revision (and the approved one).

    The dump is stored once, as uploaded; a task reads it into chunk files, chunk tasks evaluate
    them on the task queue (review/impact_tasks.py) and write one ImpactResult per object.
    """

    class State(models.TextChoices):
        QUEUED = "queued", "Queued"
        READING = "reading", "Reading the dump"
        RUNNING = "running", "Evaluating"
        DONE = "done", "Finished"
        FAILED = "failed", "Failed"
        CANCELLED = "cancelled", "Cancelled"

    draft = models.ForeignKey(Draft, on_delete=models.CASCADE, related_name="impact_runs")
    revision = models.ForeignKey(Revision, on_delete=models.CASCADE, related_name="+")
    baseline = models.ForeignKey(
        Revision, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created = models.DateTimeField(auto_now_add=True)
    finished = models.DateTimeField(null=True, blank=True)
    state = models.CharField(max_length=10, choices=State.choices, default=State.QUEUED)
    # While the dump is read: until when the reading worker holds the run (it renews the lease).
    read_lease = models.DateTimeField(null=True, blank=True)
    error = models.TextField(blank=True)
    dump = models.FileField(storage=impact_storage, upload_to="dumps/", blank=True)
    namespaces_dump = models.FileField(storage=impact_storage, upload_to="dumps/", blank=True)
    # Namespace objects by name, read from both dumps before evaluation starts.
    namespaces = models.JSONField(default=dict, blank=True)
    # Namespaces the objects are in but neither dump holds (their selectors see no labels).
    missing_namespaces = models.JSONField(default=list, blank=True)
    total = models.PositiveIntegerField(default=0)
    position = models.PositiveIntegerField(default=0)
    summary = models.JSONField(default=dict, blank=True)
    # The API server's defaulting of each object before admission (a dump taken from a cluster
    # is already defaulted; hand-written objects are not).
    defaulting = models.BooleanField(default=True)

    class Meta:
        ordering = ["-created", "-pk"]
        indexes = [models.Index(fields=["created_by", "state"])]

    def __str__(self) -> str:
        return f"impact of {self.revision} on {self.total} objects"

    def get_absolute_url(self) -> str:
        return reverse("review:impact_run", args=[self.draft_id, self.pk])

    @property
    def done(self) -> bool:
        """Whether the run has stopped (finished, failed or cancelled)."""
        return self.state in (self.State.DONE, self.State.FAILED, self.State.CANCELLED)

    @property
    def percent(self) -> int:
        """How far the run is, 0-100: 100 only once finished, 0 while the objects are uncounted."""
        if self.state == self.State.DONE:
            return 100
        if not self.total:
            return 0
        # Never 100 before the run is done: a poller takes 100 for finished.
        return min(99, int(100 * self.position / self.total))


class ImpactChunk(models.Model):
    """A slice of a run's objects, evaluated by one task; a lease says who works on it until when."""

    class State(models.TextChoices):
        PENDING = "pending", "Pending"
        RUNNING = "running", "Running"
        DONE = "done", "Done"

    run = models.ForeignKey(ImpactRun, on_delete=models.CASCADE, related_name="chunks")
    index = models.PositiveIntegerField()
    start = models.PositiveIntegerField()  # position of the chunk's first object in the dump
    count = models.PositiveIntegerField()
    state = models.CharField(max_length=8, choices=State.choices, default=State.PENDING)
    # Running: a worker renews the lease while it evaluates; past it, the chunk is given to another
    # task. Pending: when its task is looked at again if no worker has claimed the chunk by then.
    lease_until = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    # The task queued for it last (the task queue's result id): a worker that died after taking
    # that task and before claiming the chunk leaves it pending, and only the task's state says so.
    task_id = models.CharField(max_length=64, blank=True, default="")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["run", "index"], name="impact_chunk_unique")]
        indexes = [models.Index(fields=["run", "state"])]

    def __str__(self) -> str:
        return f"chunk {self.index} of run {self.run_id}"


class ImpactResult(models.Model):
    """What the revision (and the baseline) does to one object on CREATE and UPDATE."""

    # No index of its own: every index below starts with the run, and the unique (run, position)
    # serves the run alone. A sixth index would cost each of a run's row inserts for nothing.
    run = models.ForeignKey(
        ImpactRun, on_delete=models.CASCADE, related_name="results", db_index=False
    )
    position = models.PositiveIntegerField()  # the object's place in the dump
    api_version = models.CharField(max_length=253, blank=True)
    kind = models.CharField(max_length=253, blank=True)
    namespace = models.CharField(max_length=253, blank=True)
    name = models.CharField(max_length=253, blank=True)
    create_result = models.CharField(max_length=5)
    update_result = models.CharField(max_length=5)
    create_before = models.CharField(max_length=5, blank=True)
    update_before = models.CharField(max_length=5, blank=True)
    # The API server's answer (`allowed`): an error is rejected under failurePolicy Fail and
    # admitted under Ignore. NULL: the baseline's where there was none (x_before ""), and an
    # error's in rows stored before migration 0014 (which fills in the other results' answers):
    # a guess could tell a reader the cluster rejects what it admits, so those stay unknown.
    create_allowed = models.BooleanField(null=True)
    update_allowed = models.BooleanField(null=True)
    create_before_allowed = models.BooleanField(null=True)
    update_before_allowed = models.BooleanField(null=True)
    create_mutated = models.BooleanField(default=False)
    update_mutated = models.BooleanField(default=False)
    annotations = models.PositiveIntegerField(default=0)
    changed = models.BooleanField(default=False)
    create_message = models.TextField(blank=True)
    update_message = models.TextField(blank=True)

    class Meta:
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(fields=["run", "position"], name="impact_result_unique")
        ]
        indexes = [
            models.Index(fields=["run", "create_result"]),
            models.Index(fields=["run", "update_result"]),
            models.Index(fields=["run", "namespace"]),
            models.Index(fields=["run", "kind"]),
            models.Index(fields=["run", "changed"]),
            # Partial: only mutated rows are in it, so a run without mutations pays nothing for
            # it at insert time, and the "mutated" filter (in one or any operation) is a lookup.
            models.Index(
                fields=["run"],
                condition=models.Q(create_mutated=True) | models.Q(update_mutated=True),
                name="impact_result_mutated",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.namespace}/{self.name}"
