"""Fixtures for review tests: team-a (tests/conftest.py), the teams tests' team-b, a draft in team-a."""

from __future__ import annotations

import pytest

from policyeditor.editor.services import create_draft, save_draft
from policyeditor.review.workflow import approve, assign_team, request_review
from tests.builders import bound
from tests.builders import replica_limit as policy

# carol, dave and team-a are tests/conftest.py's; eve and team-b are the teams tests'.
from tests.teams.conftest import (  # noqa: F401
    eve,
    fast_password_hashing,
    other_team,
)


@pytest.fixture
def draft(alice, team):
    """alice's draft of the sample policy, in team-a, one revision."""
    draft = create_draft(alice, [policy(5)], name="replica-limit")
    assign_team(alice, draft, team)
    draft.refresh_from_db()
    return draft


@pytest.fixture
def bound_draft(alice, team):
    """The draft with a binding of its policy: a cluster, and so impact analysis, ignores a policy
    no binding references."""
    draft = create_draft(alice, bound(policy(5)), name="replica-limit")
    assign_team(alice, draft, team)
    draft.refresh_from_db()
    return draft


def edit(draft, user, limit: int, note: str = ""):
    """Save the draft as a new revision with another limit (its other documents kept)."""
    draft.refresh_from_db()
    others = [doc for doc in draft.documents if doc.get("kind") != "ValidatingAdmissionPolicy"]
    return save_draft(
        draft, [policy(limit), *others], expected_revision=draft.revision, author=user, note=note
    )


def approved_then_edited(draft, author, reviewer, limit: int):
    """`author` asks for review, `reviewer` approves revision 1, `author` saves a new limit."""
    request_review(author, draft)
    approve(reviewer, draft, revision_number=1)
    return edit(draft, author, limit)
