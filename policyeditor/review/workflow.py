"""Review workflow transitions; the one place both the HTML views and the API change review state.

draft -> in review -> approved | changes requested -> (edit) -> in review ...
Approvals count for one revision only: saving a new revision while in review dismisses them, and
editing an approved draft starts a new draft revision on top while the approved one stays marked.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import Exists, OuterRef, Q, QuerySet, Subquery
from django.utils import timezone

from policyeditor.editor.models import Draft, Revision, Status
from policyeditor.engine.manifests.loading import dump_documents
from policyeditor.review import audit, moves
from policyeditor.review.models import Action, Decision, DraftWorkflow, Review, ShareLink
from policyeditor.review.permissions import can_edit, can_review, can_view

# The refusals are the teams app's, so team and review actions are caught alike.
from policyeditor.teams.errors import NotAllowed, WorkflowError
from policyeditor.teams.models import ROLE_RANK, Membership, Role, Team


def _locked(draft: Draft) -> Draft:
    """The draft re-read under a row lock so concurrent transitions serialise."""
    return Draft.objects.select_for_update().get(pk=draft.pk)


def _workflow(draft: Draft) -> DraftWorkflow:
    try:
        return DraftWorkflow.objects.select_related("team", "approved_revision").get(draft=draft)
    except DraftWorkflow.DoesNotExist:
        raise WorkflowError("This draft belongs to no team; move it to a team first.") from None


def _set_status(draft: Draft, status: str) -> None:
    # A plain UPDATE of one column: never overwrites documents saved concurrently.
    Draft.objects.filter(pk=draft.pk).update(status=status)
    draft.status = status


def latest_revision(draft: Draft) -> Revision | None:
    """The draft's newest revision."""
    return draft.revisions.order_by("-number").first()


def get_revision(draft: Draft, number) -> Revision:
    """Revision `number` of the draft, or WorkflowError."""
    try:
        return draft.revisions.get(number=int(number))
    except (Revision.DoesNotExist, ValueError, TypeError):
        raise WorkflowError(f"Revision {number} does not exist.") from None


def reviewers(team: Team) -> list:
    """Users who may review in `team`."""
    ranks = [role for role, rank in ROLE_RANK.items() if rank >= ROLE_RANK[Role.REVIEWER]]
    return [m.user for m in team.memberships.filter(role__in=ranks).select_related("user")]


def approved_revision(draft: Draft) -> Revision | None:
    """The last approved revision of the draft, if any."""
    try:
        return draft.workflow.approved_revision
    except DraftWorkflow.DoesNotExist:
        return None


def approvals(draft: Draft, revision: Revision) -> QuerySet[Review]:
    """Approvals of `revision` that still count (the reviewer's latest decision on it)."""
    reviews = Review.objects.filter(draft=draft, revision=revision, withdrawn=False)
    latest_ids = []
    seen = set()
    for review in reviews.order_by("-created", "-pk"):
        if review.reviewer_id not in seen:
            seen.add(review.reviewer_id)
            latest_ids.append(review.pk)
    return reviews.filter(pk__in=latest_ids, decision=Decision.APPROVE)


@transaction.atomic
def assign_team(user, draft: Draft, team: Team) -> DraftWorkflow:
    """Move a draft into `team`: a personal draft by its author, a team's draft as `moves` rules.

    The returned workflow's team is still the old one when the move waits for an admin's approval.
    """
    draft = _locked(draft)
    moves.check_destination(user, draft, team)
    workflow, created = DraftWorkflow.objects.select_related("team").get_or_create(
        draft=draft, defaults={"team": team}
    )
    if not created and workflow.team_id != team.pk:
        return moves.move_or_request(user, draft, workflow, team)
    audit.record(
        Action.TEAM_ASSIGNED, actor=user, draft=draft, team=team, detail={"team": team.name}
    )
    return workflow


@transaction.atomic
def request_review(user, draft: Draft, *, note: str = "") -> Draft:
    """Ask the team's reviewers to review the latest revision."""
    draft = _locked(draft)
    workflow = _workflow(draft)
    if not can_edit(user, draft):
        raise NotAllowed("Only authors of this team can request a review.")
    if draft.status == Status.IN_REVIEW:
        raise WorkflowError("This draft is already in review.")
    if draft.status == Status.ARCHIVED:
        raise WorkflowError("An archived draft cannot be reviewed.")
    revision = latest_revision(draft)
    if revision is None:
        raise WorkflowError("This draft has no saved revision to review.")
    if workflow.approved_revision_id == revision.pk:
        raise WorkflowError("Nothing changed since the approved revision.")
    _set_status(draft, Status.IN_REVIEW)
    workflow.review_requested_by = user
    workflow.review_requested_at = timezone.now()
    workflow.save(update_fields=["review_requested_by", "review_requested_at", "updated"])
    audit.record(
        Action.REVIEW_REQUESTED,
        actor=user,
        draft=draft,
        team=workflow.team,
        revision_number=revision.number,
        detail={"note": note[:500]} if note else {},
        notify=reviewers(workflow.team),
    )
    return draft


@transaction.atomic
def withdraw_review(user, draft: Draft) -> Draft:
    """Take a draft out of review, back to draft."""
    draft = _locked(draft)
    workflow = _workflow(draft)
    if not can_edit(user, draft):
        raise NotAllowed("Only authors of this team can withdraw a review request.")
    if draft.status != Status.IN_REVIEW:
        raise WorkflowError("This draft is not in review.")
    _set_status(draft, Status.DRAFT)
    audit.record(Action.REVIEW_WITHDRAWN, actor=user, draft=draft, team=workflow.team)
    return draft


def _decide(
    user, draft: Draft, revision_number, decision: str, body: str
) -> tuple[Review, DraftWorkflow]:
    """Checks shared by approve and request_changes; the stored review and the draft's workflow."""
    workflow = _workflow(draft)
    if not can_review(user, draft):
        raise NotAllowed("Only reviewers of this team can review.")
    if draft.status != Status.IN_REVIEW:
        raise WorkflowError("This draft is not in review.")
    revision = get_revision(draft, revision_number)
    latest = latest_revision(draft)
    if latest is None or revision.pk != latest.pk:
        raise WorkflowError(
            f"Revision {revision.number} is no longer the latest: revision "
            f"{latest.number if latest else '?'} was saved since. Review the latest revision."
        )
    if decision == Decision.APPROVE and revision.author_id == user.pk:
        raise NotAllowed("You wrote this revision: someone else has to approve it.")
    if decision == Decision.REQUEST_CHANGES and not body.strip():
        raise WorkflowError("Say what should change.")
    already = approvals(draft, revision).filter(reviewer=user).exists()
    if decision == Decision.APPROVE and already:
        raise WorkflowError("You already approved this revision.")
    review = Review.objects.create(
        draft=draft, revision=revision, reviewer=user, decision=decision, body=body
    )
    return review, workflow


def _record_decision(
    action: str,
    user,
    draft: Draft,
    workflow: DraftWorkflow,
    review: Review,
    detail: dict[str, Any] | None = None,
) -> None:
    """The audit event of a review decision, notifying the draft's owner and the revision's author."""
    audit.record(
        action,
        actor=user,
        draft=draft,
        team=workflow.team,
        revision_number=review.revision.number,
        detail=detail,
        notify=[draft.owner, review.revision.author],
    )


@transaction.atomic
def approve(user, draft: Draft, *, revision_number, body: str = "") -> Review:
    """Approve the revision under review; with enough approvals the draft is approved."""
    draft = _locked(draft)
    review, workflow = _decide(user, draft, revision_number, Decision.APPROVE, body)
    count = approvals(draft, review.revision).count()
    needed = max(1, workflow.team.required_approvals)
    complete = count >= needed
    if complete:
        workflow.approved_revision = review.revision
        workflow.save(update_fields=["approved_revision", "updated"])
        _set_status(draft, Status.APPROVED)
    detail = {"approvals": count, "required": needed, "complete": complete}
    _record_decision(Action.APPROVED, user, draft, workflow, review, detail)
    return review


@transaction.atomic
def request_changes(user, draft: Draft, *, revision_number, body: str) -> Review:
    """Send the draft back to its authors with what should change."""
    draft = _locked(draft)
    review, workflow = _decide(user, draft, revision_number, Decision.REQUEST_CHANGES, body or "")
    _set_status(draft, Status.CHANGES_REQUESTED)
    _record_decision(Action.CHANGES_REQUESTED, user, draft, workflow, review)
    return review


def revision_saved(revision: Revision) -> None:
    """Follow a new revision: approved drafts become drafts again, reviewers hear of edits in review."""
    draft = Draft.objects.get(pk=revision.draft_id)
    if revision.number > 1:
        try:
            workflow = DraftWorkflow.objects.select_related("team").get(draft=draft)
        except DraftWorkflow.DoesNotExist:
            workflow = None
        notify = [draft.owner]
        if workflow is not None and draft.status == Status.APPROVED:
            # The approved revision is frozen: this edit is a new draft revision on top of it.
            _set_status(draft, Status.DRAFT)
        elif workflow is not None and draft.status == Status.IN_REVIEW:
            notify += reviewers(workflow.team)
        audit.record(
            Action.EDITED,
            actor=revision.author,
            draft=draft,
            revision_number=revision.number,
            detail={"note": revision.note} if revision.note else {},
            notify=notify,
        )


def export_revision(user, draft: Draft, revision: Revision) -> str:
    """The revision as kubectl-ready YAML, recording the export."""
    if not can_view(user, draft):
        raise NotAllowed("You cannot export this draft.")
    # The YAML as written when the revision keeps it (older revisions: a kubectl-ready dump).
    text = revision.source or dump_documents(revision.documents)
    audit.record(
        Action.EXPORTED,
        actor=user,
        draft=draft,
        revision_number=revision.number,
        detail={"approved": approved_revision(draft) == revision},
    )
    return text


def export_approved(user, draft: Draft) -> tuple[Revision, str]:
    """The last approved revision and its YAML; WorkflowError when nothing was approved yet."""
    revision = approved_revision(draft)
    if revision is None:
        raise WorkflowError("No revision of this draft has been approved yet.")
    return revision, export_revision(user, draft, revision)


def create_share_link(
    user, draft: Draft, revision: Revision, *, try_inputs: dict | None = None
) -> ShareLink:
    """A read-only link to one revision for the team (with Try-it inputs to replay, if given)."""
    if not can_view(user, draft) or revision.draft_id != draft.pk:
        raise NotAllowed("You cannot share this draft.")
    link = ShareLink.objects.create(revision=revision, created_by=user, try_inputs=try_inputs or {})
    audit.record(Action.SHARED, actor=user, draft=draft, revision_number=revision.number)
    return link


def revoke_share_link(user, link: ShareLink) -> ShareLink:
    """Stop a share link from opening; its creator or an author of the draft may."""
    draft = link.revision.draft
    if link.created_by_id != user.pk and not can_edit(user, draft):
        raise NotAllowed("Only the link's creator or an author can revoke it.")
    if link.revoked_at is None:
        link.revoked_at = timezone.now()
        link.save(update_fields=["revoked_at"])
        audit.record(
            Action.SHARE_REVOKED, actor=user, draft=draft, revision_number=link.revision.number
        )
    return link


def waiting_reviews(user) -> QuerySet[Draft]:
    """Drafts in review that `user` can review and has not yet decided on (their latest revision)."""
    from policyeditor.review.permissions import visible_drafts

    if not getattr(user, "is_authenticated", False):
        return Draft.objects.none()
    roles = [role for role, rank in ROLE_RANK.items() if rank >= ROLE_RANK[Role.REVIEWER]]
    teams = Membership.objects.filter(user=user, role__in=roles).values("team_id")
    latest = Revision.objects.filter(draft=OuterRef("pk")).order_by("-number")
    decided = Review.objects.filter(
        draft=OuterRef("pk"), revision_id=OuterRef("latest_id"), reviewer=user, withdrawn=False
    )
    # One query (the header badge runs it on every page): annotate the latest revision, then
    # drop drafts whose latest revision the user wrote or already decided on.
    return (
        visible_drafts(user)
        .filter(status=Status.IN_REVIEW, workflow__team_id__in=teams)
        .annotate(
            latest_id=Subquery(latest.values("pk")[:1]),
            latest_author=Subquery(latest.values("author_id")[:1]),
        )
        .filter(latest_id__isnull=False)
        .filter(Q(latest_author__isnull=True) | ~Q(latest_author=user.pk))
        .exclude(Exists(decided))
    )


@transaction.atomic
def delete_draft(user, draft: Draft) -> None:
    """Delete a draft and its revisions (see permissions.can_delete); the audit log keeps it."""
    from policyeditor.review.permissions import can_delete

    if not can_delete(user, draft):
        raise NotAllowed("Only the draft's owner, a team admin or staff can delete it.")
    draft._deleted_by = user  # read by the pre_delete signal that records the deletion
    draft.delete()
