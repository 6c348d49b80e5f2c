"""Audit what the editor's services and team management do, without them knowing about review."""

from __future__ import annotations

import shutil

from django.db.models.signals import post_delete, post_save, pre_delete
from django.dispatch import receiver

from policyeditor.editor.models import Draft, Revision
from policyeditor.review import audit, workflow
from policyeditor.review.impact_tasks import chunk_dir
from policyeditor.review.models import Action, ImpactRun
from policyeditor.teams import signals as team_signals


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


@receiver(team_signals.member_added, dispatch_uid="review_member_added")
def member_added(sender, *, actor, team, member, role: str, **kwargs) -> None:
    """Record a new member (or a changed role) and tell the member."""
    audit.record(
        Action.MEMBER_ADDED,
        actor=actor,
        team=team,
        detail={"member": member.get_username(), "role": role},
        notify=[member],
    )


@receiver(team_signals.member_removed, dispatch_uid="review_member_removed")
def member_removed(sender, *, actor, team, member, **kwargs) -> None:
    """Record a removed member."""
    audit.record(
        Action.MEMBER_REMOVED, actor=actor, team=team, detail={"member": member.get_username()}
    )


@receiver(team_signals.rules_changed, dispatch_uid="review_team_rules_changed")
def rules_changed(sender, *, actor, team, **kwargs) -> None:
    """Record a change of the team's approval rule."""
    audit.record(
        Action.TEAM_CHANGED,
        actor=actor,
        team=team,
        detail={"required_approvals": team.required_approvals},
    )


@receiver(post_delete, sender=ImpactRun, dispatch_uid="review_impact_run_deleted")
def impact_run_deleted(sender, instance: ImpactRun, **kwargs) -> None:
    """A deleted run (or its draft) leaves no dump or chunk files behind."""
    for field in (instance.dump, instance.namespaces_dump):
        if field:
            field.delete(save=False)
    shutil.rmtree(chunk_dir(instance.pk), ignore_errors=True)
