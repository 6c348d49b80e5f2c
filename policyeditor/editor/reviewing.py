"""What the editor shows and does about a draft's review: state badge, approved mark, exports."""

# The review app builds on the editor and registers its hooks in editor.extensions: without it
# the editor page simply shows no review controls and exports the latest revision.

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.urls import NoReverseMatch

from policyeditor.editor import extensions
from policyeditor.editor.models import Draft, Revision


class ExportError(Exception):
    """The asked-for revision cannot be exported; the message says why."""


@dataclass
class ReviewState:
    """The review facts the editor page shows next to the draft's title."""

    review_url: str
    status: str
    status_label: str
    # The page of the draft's saved test cases (linked from the Tests tab).
    cases_url: str = ""
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
    hooks = extensions.review()
    if hooks is None:
        return None
    try:
        review_url = hooks.review_url(draft)
        cases_url = hooks.cases_url(draft)
    except NoReverseMatch:
        return None
    approved = hooks.approved_revision(draft)
    return ReviewState(
        review_url=review_url,
        status=draft.status,
        status_label=draft.get_status_display(),
        cases_url=cases_url,
        team=hooks.team_of(draft),
        approved_number=approved.number if approved is not None else None,
        latest_number=draft.revision,
    )


def export_revision_for(draft: Draft, which: str) -> Revision | None:
    """The revision `which` names: "" or "latest" (None: the saved documents), "approved" or a number."""
    which = (which or "").strip()
    if which in ("", "latest"):
        return None
    if which == "approved":
        hooks = extensions.review()
        approved = hooks.approved_revision(draft) if hooks is not None else None
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
    hooks = extensions.review()
    if hooks is not None:
        hooks.record_export(user, draft, number, part=part, approved=approved)


def share_try_url(draft: Draft) -> str:
    """Where the Try-it tab creates a read-only link with its inputs ('' without the review app)."""
    hooks = extensions.review()
    if hooks is None or hooks.share_try_url is None:
        return ""
    try:
        return hooks.share_try_url(draft)
    except NoReverseMatch:
        return ""


@dataclass
class FieldComment:
    """An open review thread about one field, placed at the form control that shows it."""

    doc_index: int
    path: str
    author: str
    body: str
    url: str
    replies: int = 0
    target: str = ""


def field_comments(draft: Draft, user) -> list[FieldComment]:
    """The open field threads of the draft's latest revision ([] without the review app)."""
    hooks = extensions.review()
    if hooks is None or hooks.field_comments is None:
        return []
    return [FieldComment(**found) for found in hooks.field_comments(draft, user)]


def comment_url(draft: Draft, user) -> str:
    """Where the user posts a comment on a field ('' when they may not, or without review)."""
    hooks = extensions.review()
    if hooks is None or hooks.comment_url is None:
        return ""
    try:
        return hooks.comment_url(draft, user)
    except NoReverseMatch:
        return ""
