"""Tests for what each team role may do with a draft."""

from __future__ import annotations

import pytest
from django.http import Http404

from policyeditor.editor.access import get_draft_for
from policyeditor.editor.services import create_draft
from policyeditor.review import permissions

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("member", "view", "comment", "edit", "review"),
    [
        ("alice", True, True, True, False),  # author
        ("bob", True, True, True, True),  # reviewer
        ("carol", True, True, False, False),  # viewer
        ("dave", True, True, True, True),  # admin
        ("eve", False, False, False, False),  # another team
    ],
)
def test_each_role_gets_exactly_its_rights_on_a_team_draft(
    request, draft, other_team, member, view, comment, edit, review
):
    user = request.getfixturevalue(member)
    assert permissions.can_view(user, draft) is view
    assert permissions.can_comment(user, draft) is comment
    assert permissions.can_edit(user, draft) is edit
    assert permissions.can_review(user, draft) is review


def test_a_user_of_another_team_reaching_a_draft_gets_404(draft, eve, other_team):
    with pytest.raises(Http404):
        get_draft_for(eve, draft.pk)


def test_every_team_member_reaches_a_team_draft_through_the_editor_access_helper(
    draft, bob, carol, dave
):
    for user in (bob, carol, dave):
        assert get_draft_for(user, draft.pk) == draft


def test_a_personal_draft_keeps_the_owner_rule(alice, bob, team):
    mine = create_draft(alice, [], name="mine")
    assert permissions.can_edit(alice, mine)
    assert not permissions.can_view(bob, mine)
    assert not permissions.can_review(alice, mine)  # nobody reviews outside a team
    with pytest.raises(Http404):
        get_draft_for(bob, mine.pk)


def test_an_owner_who_leaves_the_team_loses_the_team_draft(draft, alice, team):
    team.memberships.get(user=alice).delete()
    assert not permissions.can_view(alice, draft)
    assert not alice.groups.filter(pk=team.group_id).exists()


def test_anonymous_users_can_do_nothing(draft):
    from django.contrib.auth.models import AnonymousUser

    anon = AnonymousUser()
    assert not permissions.can_view(anon, draft)
    assert not permissions.can_edit(anon, draft)
    assert list(permissions.visible_drafts(anon)) == []


def test_visible_drafts_lists_team_drafts_and_own_personal_drafts_only(
    draft, alice, bob, eve, other_team
):
    personal = create_draft(bob, [], name="bob's own")
    theirs = create_draft(eve, [], name="eve's own")
    assert set(permissions.visible_drafts(bob)) == {draft, personal}
    assert set(permissions.visible_drafts(alice)) == {draft}
    assert theirs in permissions.visible_drafts(eve)
    assert draft not in permissions.visible_drafts(eve)


def test_a_viewer_reaching_the_editor_save_path_is_refused_with_403(draft, carol, alice):
    from django.core.exceptions import PermissionDenied

    from policyeditor.editor.access import get_editable_draft_for

    with pytest.raises(PermissionDenied):
        get_editable_draft_for(carol, draft.pk)
    assert get_editable_draft_for(alice, draft.pk) == draft


def test_owner_team_admin_and_staff_may_delete_but_not_a_reviewer(
    draft, alice, bob, dave, make_user
):
    assert permissions.can_delete(alice, draft)  # owner
    assert permissions.can_delete(dave, draft)  # team admin
    assert permissions.can_delete(make_user("root", is_staff=True), draft)
    assert not permissions.can_delete(bob, draft)


def test_visible_draft_agrees_with_visible_drafts_for_every_user_and_draft(
    draft, alice, bob, carol, dave, eve, other_team, make_user
):
    from django.contrib.auth.models import AnonymousUser

    from policyeditor.editor.models import Draft
    from policyeditor.review.workflow import assign_team

    staff = make_user("staff", is_staff=True)
    inactive = make_user("gone", is_active=False)
    personal = create_draft(bob, [], name="bob's own")
    theirs = create_draft(eve, [], name="eve's own")
    in_other_team = create_draft(eve, [], name="team-b draft")
    assign_team(eve, in_other_team, other_team)
    drafts = [draft, personal, theirs, in_other_team]
    for user in [alice, bob, carol, dave, eve, staff, inactive, AnonymousUser()]:
        listed = set(permissions.visible_drafts(user))
        for subject in drafts:
            try:
                found = permissions.visible_draft(user, subject.pk) == subject
            except Draft.DoesNotExist:
                found = False
            assert found == (subject in listed), (user, subject)
    with pytest.raises(Draft.DoesNotExist):
        permissions.visible_draft(staff, 10**9)
