"""Tests for team roles: who is in which team, who manages it."""

from __future__ import annotations

import pytest

from policyeditor.teams import roles
from policyeditor.teams.models import Role

pytestmark = pytest.mark.django_db


def test_only_team_admins_manage_members(team, alice, dave, make_user):
    assert roles.can_manage(dave, team)
    assert not roles.can_manage(alice, team)
    assert roles.can_manage(make_user("root", is_staff=True), team)


def test_membership_puts_the_user_in_the_teams_auth_group(team, carol):
    assert carol.groups.filter(name="team:team-a").exists()
    assert roles.role_in(carol, team) == Role.VIEWER


def test_roles_rank_so_a_higher_role_holds_every_lower_one(team, dave, carol):
    assert roles.has_role(dave, team, Role.AUTHOR)
    assert not roles.has_role(carol, team, Role.AUTHOR)
    assert not roles.ranks_at_least(None, Role.VIEWER)
