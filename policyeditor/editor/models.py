"""Drafts of admission policies and their immutable revisions."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.urls import reverse

from policyeditor.core.fields import OrderedJSONField, storage_limit_fields
from policyeditor.core.models import WriteOnce
from policyeditor.engine import objects
from policyeditor.engine.versions import DEFAULT_VERSION


class Kind(models.TextChoices):
    """Which policy family a draft holds."""

    VAP = "VAP", "ValidatingAdmissionPolicy"
    MAP = "MAP", "MutatingAdmissionPolicy"


class Status(models.TextChoices):
    """Where a draft is in its life; the review app moves drafts between these."""

    DRAFT = "draft", "Draft"
    IN_REVIEW = "in_review", "In review"
    CHANGES_REQUESTED = "changes_requested", "Changes requested"
    APPROVED = "approved", "Approved"
    ARCHIVED = "archived", "Archived"


POLICY_KINDS = {Kind.VAP: objects.VAP, Kind.MAP: objects.MAP}


class DraftQuerySet(models.QuerySet["Draft"]):
    """Queries on drafts used by the list view, the API and access checks."""

    def visible_to(self, user) -> DraftQuerySet:
        """Drafts `user` may see: their own, or all of them for staff."""
        if not getattr(user, "is_authenticated", False):
            return self.none()
        if user.is_staff:
            return self
        return self.filter(owner=user)

    def search(self, text: str) -> DraftQuerySet:
        """Drafts whose name or description contains `text` (case-insensitive)."""
        text = (text or "").strip()
        if not text:
            return self
        return self.filter(Q(name__icontains=text) | Q(description__icontains=text))


class Draft(models.Model):
    """A policy being authored: the Kubernetes documents themselves, stored as JSON."""

    name = models.CharField(max_length=253)
    description = models.TextField(blank=True)
    kind = models.CharField(max_length=3, choices=Kind.choices, default=Kind.VAP)
    kubernetes_version = models.CharField(max_length=8, default=DEFAULT_VERSION)
    api_version = models.CharField(max_length=64, default="admissionregistration.k8s.io/v1")
    # Manifest-based admission control (KEP-5793): the draft is meant for a staticManifestsDir,
    # so validation applies the static loader's rules and export offers the layout. The database
    # default lets rows written by code that predates the column (a rolling deploy) still insert.
    static_manifests = models.BooleanField(default=False, db_default=False)
    # The policy, its bindings and param objects, exactly as kubectl would apply them.
    documents = OrderedJSONField(default=list, blank=True)
    # The same documents as YAML text, kept as written (comments, order, quoting, styles):
    # saves change it only where the documents change (engine.manifests.roundtrip).
    source = models.TextField(blank=True, default="", db_default="")
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="drafts"
    )
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.DRAFT)
    # The number of the latest saved revision; saves compare it to detect concurrent edits.
    revision = models.PositiveIntegerField(default=0)
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    objects = DraftQuerySet.as_manager()
    # Not a column: save_draft sets it on the draft it returns when nothing changed.
    unchanged: bool = False

    # Not a column: who deletes the draft, set by review.workflow.delete_draft just before
    # delete() for the pre_delete signal that records it (declared only, for type checkers).
    _deleted_by: Any

    class Meta:
        ordering = ["-updated", "-pk"]
        # One index per sort the drafts list offers: the page query walks it and stops after a
        # page of visible rows instead of sorting them all. The filter columns ride along so a
        # rare filter value is tested on index entries, not on table rows (bench_app_scale.py).
        indexes = [
            models.Index(fields=["owner", "-updated"]),
            models.Index(
                fields=["-updated", "-id", "status", "kind", "owner"],
                name="editor_draft_updated_idx",
            ),
            models.Index(
                fields=["name", "id", "status", "kind", "owner"], name="editor_draft_name_idx"
            ),
            models.Index(
                fields=["created", "id", "status", "kind", "owner"], name="editor_draft_created_idx"
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("editor:draft_edit", args=[self.pk])

    @property
    def policy_kind(self) -> str:
        """The Kubernetes kind of the policy document this draft holds."""
        return POLICY_KINDS[Kind(self.kind)]

    def policy_document(self) -> dict | None:
        """The first policy object among the documents, if any."""
        for doc in self.documents or []:
            if isinstance(doc, dict) and doc.get("kind") == self.policy_kind:
                return doc
        return None


class Revision(WriteOnce):
    """One saved state of a draft; never changed after it is written."""

    # Revisions are history: rewriting one would falsify what was reviewed, and deleting one
    # alone would break the history (they go with their draft).
    write_once_error = "revisions are immutable"

    draft = models.ForeignKey(Draft, on_delete=models.CASCADE, related_name="revisions")
    number = models.PositiveIntegerField()
    documents = OrderedJSONField(default=list)
    # The revision's YAML as written; export returns it (empty for revisions saved before it).
    source = models.TextField(blank=True, default="", db_default="")
    kubernetes_version = models.CharField(max_length=8, default=DEFAULT_VERSION)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="draft_revisions",
    )
    note = models.CharField(max_length=500, blank=True)
    # Bytes of the documents as compact JSON: what the storage quota counts (editor/quotas.py).
    size = models.PositiveIntegerField(default=0)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["draft", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["draft", "number"], name="revision_number_unique")
        ]

    def __str__(self) -> str:
        return f"{self.draft.name} r{self.number}"


class Autosave(models.Model):
    """One user's unsaved form state of a draft, kept by the server until saved or discarded."""

    draft = models.ForeignKey(Draft, on_delete=models.CASCADE, related_name="autosaves")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    documents = OrderedJSONField(default=list)
    kubernetes_version = models.CharField(max_length=8, default=DEFAULT_VERSION)
    # The revision the unsaved state was based on: a save after restoring it is checked against
    # this number, so an edit restored from before someone else's save is a conflict.
    base_revision = models.PositiveIntegerField()
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["draft", "user"], name="autosave_one_per_user")
        ]

    def __str__(self) -> str:
        return f"{self.draft.name} autosave of {self.user}"


class UserQuota(models.Model):
    """An administrator's override of one user's storage limits; empty fields keep the defaults."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="storage_quota"
    )
    max_drafts, max_revisions, max_bytes = storage_limit_fields(
        "drafts the user may own", "the user's"
    )

    def __str__(self) -> str:
        return f"storage quota of {self.user}"


class DraftCrdPin(models.Model):
    """CRDs a draft pins for itself: used instead of its team's schema library (all or nothing)."""

    draft = models.OneToOneField(Draft, on_delete=models.CASCADE, related_name="crd_pin")
    documents = models.JSONField(default=list)  # the checked CRD documents
    summary = models.JSONField(default=list)  # as schemalib.services.summarize writes it
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    updated = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"CRDs pinned by draft {self.draft_id}"


class TryInput(models.Model):
    """One user's Try-it inputs of a draft (object, oldObject, params, request...), kept on reload."""

    draft = models.ForeignKey(Draft, on_delete=models.CASCADE, related_name="try_inputs")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    # The Try-it form's fields by name (try_object, try_operation, ...), as posted.
    inputs = models.JSONField(default=dict)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["draft", "user"], name="try_input_one_per_user")
        ]

    def __str__(self) -> str:
        return f"{self.draft.name} Try-it inputs of {self.user}"
