"""Fixtures for team tests: another team (team-a and its members are in tests/conftest.py)."""

from __future__ import annotations

import pytest

from policyeditor.teams.models import Role
from tests.conftest import team_of


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    """Team and review tests create many users; the real hasher's cost is tested elsewhere."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def eve(make_user):
    """An author of another team."""
    return make_user("eve")


@pytest.fixture
def other_team(eve):
    """team-b, where only eve is (an author)."""
    return team_of("team-b", [(eve, Role.AUTHOR)])
