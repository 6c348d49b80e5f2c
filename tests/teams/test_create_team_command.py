"""Tests for `manage.py create_team`."""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command

from policyeditor.teams.models import Team

pytestmark = pytest.mark.django_db


def test_create_team_adds_members_with_roles_and_updates_on_a_second_run(alice, bob, capsys):
    call_command("create_team", "platform", "--member", "alice:author", "--member", "bob:Reviewer")
    team = Team.objects.get(name="platform")
    assert dict(team.memberships.values_list("user__username", "role")) == {
        "alice": "author",
        "bob": "reviewer",
    }
    assert "Created team platform with 2 member(s)" in capsys.readouterr().out
    call_command("create_team", "platform", "--member", "alice:admin", "--required-approvals", "2")
    team.refresh_from_db()
    assert team.required_approvals == 2
    assert team.memberships.get(user=alice).role == "admin"


@pytest.mark.parametrize(
    ("member", "message"),
    [
        ("alice", "expected USER:ROLE"),
        ("alice:owner", "role must be one of"),
        ("nobody:viewer", "no user named 'nobody'"),
    ],
)
def test_create_team_rejects_bad_members_without_creating_the_team(alice, member, message):
    with pytest.raises(CommandError, match=message):
        call_command("create_team", "platform", "--member", member)
    assert not Team.objects.filter(name="platform").exists()
