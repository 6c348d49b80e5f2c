"""Audit what the editor's services do (create, save, delete) without them knowing about review."""

from __future__ import annotations

from django.db.models.signals import post_save, pre_delete
from django.dispatch import receiver

from policyeditor.editor.models import Draft, Revision
from policyeditor.review import audit, workflow
from policyeditor.review.models import Action


@receiver(post_save, sender=Draft, dispatch_uid="review_draft_created")
def draft_created(sender, instance: Draft, created: bool, raw: bool = False, **kwargs) -> None:
    """Record a new draft."""
    if created and not raw:
        audit.record(Action.CREATED, actor=instance.owner, draft=instance, revision_number=1)


@receiver(post_save, sender=Revision, dispatch_uid="review_revision_saved")
def revision_created(
    sender, instance: Revision, created: bool, raw: bool = False, **kwargs
) -> None:
    """Record an edit and move the review state along."""
    if created and not raw:
        workflow.revision_saved(instance)


@receiver(pre_delete, sender=Draft, dispatch_uid="review_draft_deleted")
def draft_deleted(sender, instance: Draft, **kwargs) -> None:
    """Record a deletion; the event keeps the draft's id and name after the row is gone."""
    actor = getattr(instance, "_deleted_by", None)
    audit.record(Action.DELETED, actor=actor, draft=instance, revision_number=instance.revision)
