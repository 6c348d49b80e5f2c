"""What apps built on the editor add to drafts: team access rules, review state, saved test cases."""

# The editor never imports the apps above it (core <- teams <- editor <- review <- api). An app
# that adds to drafts registers its hooks here in its AppConfig.ready(); the review app does.
# Hooks count only while the app that registered them is installed, so without the review app
# the editor is what it is on its own: drafts are their owner's, no review controls, no saved
# test cases.

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.apps import apps

from policyeditor.editor.models import Draft, DraftQuerySet, Revision


@dataclass(frozen=True)
class DraftAccess:
    """Who may see and save drafts, replacing the owner rule (Draft.objects.visible_to)."""

    # Every draft the user may see.
    visible_drafts: Callable[[Any], DraftQuerySet]
    # (user, pk, documents=...) -> the draft if the user may see it, else Draft.DoesNotExist.
    visible_draft: Callable[..., Draft]
    # Whether the user may save new revisions of a draft they can see.
    can_edit: Callable[[Any, Draft], bool]
    # For storage quotas: (the draft's team name, the team's drafts, its quota override or None),
    # or None for a draft without a team (its owner's quota applies).
    team_storage: Callable[[Draft], tuple[str, DraftQuerySet, Any] | None] | None = None


@dataclass(frozen=True)
class DraftReview:
    """The review facts of a draft the editor shows, and what it tells the review about exports."""

    # The page where the draft is reviewed, and the page of its saved test cases.
    review_url: Callable[[Draft], str]
    cases_url: Callable[[Draft], str]
    # The team owning the draft (None for a personal draft) and its approved revision.
    team_of: Callable[[Draft], Any]
    approved_revision: Callable[[Draft], Revision | None]
    # (user, draft, revision number, part=..., approved=...): an export happened.
    record_export: Callable[..., None]
    # (draft, team): put a draft in a team as it is (seed_demo), True when it was moved.
    join_team: Callable[[Draft, Any], bool]
    # The URL the Try-it tab posts its inputs to for a read-only share link of the draft.
    share_try_url: Callable[[Draft], str] | None = None
    # (draft, user) -> the open review comments of the latest revision, each with `path` (the
    # Kubernetes field path it is about), `author`, `body` and `url`, for showing at the fields.
    field_comments: Callable[[Draft, Any], list[Any]] | None = None
    # (draft, user) -> the URL the user posts a comment on a field to ('' when they may not).
    comment_url: Callable[[Draft, Any], str] | None = None


@dataclass(frozen=True)
class SavedCases:
    """A draft's saved test cases, for the editor's Tests tab."""

    # The draft's saved cases, oldest first; each has `.name` and `.case` (a PolicyTest case).
    saved: Callable[[Draft], list[Any]]
    # A one-line summary of one case mapping.
    summary: Callable[[dict], str]
    # (revision, cases, name=...) -> the files of a test bundle running the cases on the revision.
    bundle_files: Callable[..., dict[str, str]]
    # (user, draft, case) -> the saved case; ValueError or teams.errors.WorkflowError says why not.
    save: Callable[[Any, Draft, dict], Any]
    # draft -> (label, url) of the downloads of its saved cases on its last saved revision, one per
    # export layout (PolicyTest bundle, kat, kaptest, Kyverno CLI).
    export_links: Callable[[Draft], list[tuple[str, str]]] | None = None


@dataclass(frozen=True)
class Extension:
    """The hooks one app registers; any of them may be left out."""

    app: str
    access: DraftAccess | None = None
    review: DraftReview | None = None
    cases: SavedCases | None = None


_extensions: dict[str, Extension] = {}


def register(extension: Extension) -> None:
    """Register an app's hooks (from its AppConfig.ready()); registering again replaces them."""
    _extensions[extension.app] = extension


def registered(app: str) -> Extension | None:
    """The hooks `app` registered, installed or not."""
    return _extensions.get(app)


def unregister(app: str) -> None:
    """Drop an app's hooks."""
    _extensions.pop(app, None)


def _active() -> list[Extension]:
    return [ext for name, ext in _extensions.items() if apps.is_installed(name)]


def access() -> DraftAccess | None:
    """The registered draft access rules, or None: the owner rule applies."""
    return next((ext.access for ext in _active() if ext.access is not None), None)


def review() -> DraftReview | None:
    """The registered review hooks, or None: the editor shows no review controls."""
    return next((ext.review for ext in _active() if ext.review is not None), None)


def saved_cases() -> SavedCases | None:
    """The registered saved test cases, or None: the Tests tab says they are not available."""
    return next((ext.cases for ext in _active() if ext.cases is not None), None)
