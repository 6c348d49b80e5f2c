"""Tests for team management: members, roles and the approval rule."""

from __future__ import annotations

import pytest

from policyeditor.teams import services as teams
from policyeditor.teams import signals
from policyeditor.teams.errors import NotAllowed, WorkflowError

pytestmark = pytest.mark.django_db


def test_members_are_managed_by_admins_and_the_last_admin_stays(team, alice, dave, make_user):
    newbie = make_user("newbie")
    with pytest.raises(NotAllowed):
        teams.add_member(alice, team, newbie, "viewer")
    teams.add_member(dave, team, newbie, "author")
    assert team.memberships.get(user=newbie).role == "author"
    with pytest.raises(WorkflowError, match="Unknown role"):
        teams.add_member(dave, team, newbie, "owner")
    with pytest.raises(WorkflowError, match="at least one admin"):
        teams.remove_member(dave, team, dave)
    teams.remove_member(dave, team, newbie)
    assert not team.memberships.filter(user=newbie).exists()


def test_team_admins_set_the_number_of_required_approvals(team, alice, dave):
    with pytest.raises(NotAllowed):
        teams.set_required_approvals(alice, team, 2)
    with pytest.raises(WorkflowError, match="between 1 and 10"):
        teams.set_required_approvals(dave, team, 0)
    with pytest.raises(WorkflowError, match="a number"):
        teams.set_required_approvals(dave, team, "two")
    teams.set_required_approvals(dave, team, "2")
    team.refresh_from_db()
    assert team.required_approvals == 2


def test_team_changes_are_announced_to_the_apps_above(team, dave, make_user):
    heard = []

    def listen(sender, signal, **kwargs):
        heard.append((signal, kwargs["team"], kwargs.get("role")))

    newbie = make_user("newbie")
    for signal in (signals.member_added, signals.member_removed, signals.rules_changed):
        signal.connect(listen, weak=False, dispatch_uid="test_listen")
    try:
        teams.add_member(dave, team, newbie, "viewer")
        teams.set_required_approvals(dave, team, 2)
        teams.remove_member(dave, team, newbie)
    finally:
        for signal in (signals.member_added, signals.member_removed, signals.rules_changed):
            signal.disconnect(dispatch_uid="test_listen")
    assert heard == [
        (signals.member_added, team, "viewer"),
        (signals.rules_changed, team, None),
        (signals.member_removed, team, None),
    ]


def test_the_last_admin_cannot_demote_themselves_nor_be_demoted(team, dave, make_user):
    with pytest.raises(WorkflowError, match="at least one admin"):
        teams.add_member(dave, team, dave, "author")
    assert team.memberships.get(user=dave).role == "admin"
    second = make_user("second-admin")
    teams.add_member(dave, team, second, "admin")
    teams.add_member(second, team, dave, "viewer")  # another admin remains: allowed
    assert team.memberships.get(user=dave).role == "viewer"
    with pytest.raises(WorkflowError, match="at least one admin"):
        teams.add_member(second, team, second, "reviewer")
    with pytest.raises(WorkflowError, match="at least one admin"):
        teams.remove_member(second, team, second)
    assert team.memberships.filter(role="admin").count() == 1
