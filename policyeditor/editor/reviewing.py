"""What the editor shows and does about a draft's review: state badge, approved mark, exports."""

# The review app builds on the editor, so it is imported lazily: without it the editor page simply
# shows no review controls and exports the latest revision.

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.urls import NoReverseMatch, reverse

from policyeditor.editor.models import Draft, Revision


class ExportError(Exception):
    """The asked-for revision cannot be exported; the message says why."""


def _review():
    """The review app's workflow and permissions modules, or None when it is not installed."""
    try:
        from policyeditor.review import audit, permissions, workflow
    except ImportError:
        return None
    return workflow, permissions, audit


@dataclass
class ReviewState:
    """The review facts the editor page shows next to the draft's title."""

    review_url: str
    status: str
    status_label: str
    team: Any = None
    approved_number: int | None = None
    latest_number: int = 0

    @property
    def latest_is_approved(self) -> bool:
        """Whether the latest revision is the approved one (saving makes a new one on top)."""
        return self.approved_number is not None and self.approved_number == self.latest_number

    @property
    def save_note(self) -> str:
        """What saving will do to the approved revision, or '' when nothing was approved."""
        if self.approved_number is None:
            return ""
        if self.latest_is_approved:
            return (
                f"Revision r{self.approved_number} is approved and frozen: saving creates "
                f"revision r{self.latest_number + 1} on top of it, which needs a new review."
            )
        return (
            f"Editing revision r{self.latest_number} on top of approved revision "
            f"r{self.approved_number}; saving creates r{self.latest_number + 1}."
        )


def review_state(draft: Draft) -> ReviewState | None:
    """The draft's review state for the editor page, or None without the review app."""
    modules = _review()
    if modules is None:
        return None
    workflow, permissions, _ = modules
    try:
        review_url = reverse("review:draft", args=[draft.pk])
    except NoReverseMatch:
        return None
    approved = workflow.approved_revision(draft)
    return ReviewState(
        review_url=review_url,
        status=draft.status,
        status_label=draft.get_status_display(),
        team=permissions.team_of(draft),
        approved_number=approved.number if approved is not None else None,
        latest_number=draft.revision,
    )


def export_revision_for(draft: Draft, which: str) -> Revision | None:
    """The revision `which` names: "" or "latest" (None: the saved documents), "approved" or a number."""
    which = (which or "").strip()
    if which in ("", "latest"):
        return None
    if which == "approved":
        modules = _review()
        approved = modules[0].approved_revision(draft) if modules else None
        if approved is None:
            raise ExportError("No revision of this draft has been approved yet.")
        return approved
    try:
        return draft.revisions.get(number=int(which))
    except (Revision.DoesNotExist, ValueError, OverflowError):
        raise ExportError(
            f"revision must be latest, approved or a revision number; {which!r} is none of them."
        ) from None


def record_export(user, draft: Draft, number: int, *, part: str, approved: bool) -> None:
    """Append an `exported` event to the audit log (a no-op without the review app)."""
    modules = _review()
    if modules is None:
        return
    _, _, audit = modules
    from policyeditor.review.models import Action

    audit.record(
        Action.EXPORTED,
        actor=user,
        draft=draft,
        revision_number=number,
        detail={"approved": approved, "part": part},
    )
