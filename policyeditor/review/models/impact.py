"""Impact runs: a dump's objects run through a revision, in chunks, one result row per object."""

from __future__ import annotations

import os
from pathlib import Path

from django.conf import settings
from django.core.files.storage import FileSystemStorage
from django.db import models
from django.urls import reverse

from policyeditor.editor.models import Draft, Revision


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
