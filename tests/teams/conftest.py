"""Fixtures for team tests: a team with one member per role, and another team."""

from __future__ import annotations

import pytest

from policyeditor.teams.models import Membership, Role, Team


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    """Team and review tests create many users; the real hasher's cost is tested elsewhere."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def carol(make_user):
    """A viewer of team-a."""
    return make_user("carol")


@pytest.fixture
def dave(make_user):
    """The admin of team-a."""
    return make_user("dave")


@pytest.fixture
def eve(make_user):
    """An author of another team."""
    return make_user("eve")


@pytest.fixture
def team(alice, bob, carol, dave):
    """team-a: alice author, bob reviewer, carol viewer, dave admin."""
    team = Team.objects.create(name="team-a")
    for user, role in [
        (alice, Role.AUTHOR),
        (bob, Role.REVIEWER),
        (carol, Role.VIEWER),
        (dave, Role.ADMIN),
    ]:
        Membership.objects.create(team=team, user=user, role=role)
    return team


@pytest.fixture
def other_team(eve):
    """team-b, where only eve is (an author)."""
    team = Team.objects.create(name="team-b")
    Membership.objects.create(team=team, user=eve, role=Role.AUTHOR)
    return team
