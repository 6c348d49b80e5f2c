"""Fixtures for review tests: a team with one member per role, another team, a draft in the team."""

from __future__ import annotations

import pytest

from policyeditor.editor.services import create_draft, save_draft
from policyeditor.review.models import Membership, Role, Team
from policyeditor.review.workflow import assign_team
from tests.builders import replica_limit as policy


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    """Review tests create many users; the real hasher's cost is tested elsewhere."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def eve(make_user):
    """An author of another team."""
    return make_user("eve")


@pytest.fixture
def other_team(eve):
    """team-b, where only eve is (an author)."""
    team = Team.objects.create(name="team-b")
    Membership.objects.create(team=team, user=eve, role=Role.AUTHOR)
    return team


@pytest.fixture
def draft(alice, team):
    """alice's draft of the sample policy, in team-a, one revision."""
    draft = create_draft(alice, [policy(5)], name="replica-limit")
    assign_team(alice, draft, team)
    draft.refresh_from_db()
    return draft


def edit(draft, user, limit: int, note: str = ""):
    """Save the draft as a new revision with another limit."""
    draft.refresh_from_db()
    return save_draft(
        draft, [policy(limit)], expected_revision=draft.revision, author=user, note=note
    )
