"""Tests for the team pages (mounted by the review app at /reviews/teams/)."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from policyeditor.review.models import Action, AuditEvent

VARYING = re.compile(r'"[A-Za-z0-9+/=_-]{32,}"')


def _same_answer(body: str, name: str) -> str:
    """The page with the asked name and the per-request tokens (CSRF, CSP nonce) blanked."""
    return VARYING.sub("", body.replace(name, "NAME"))


pytestmark = pytest.mark.django_db


def test_team_admins_manage_members_on_the_team_page(team, dave, alice, make_user, as_user):
    make_user("newbie")
    url = reverse("review:team_member", args=[team.pk])
    assert as_user(alice).post(url, {"username": "newbie", "role": "viewer"}).status_code == 403
    as_user(dave).post(url, {"username": "newbie", "role": "reviewer", "action": "add"})
    assert team.memberships.get(user__username="newbie").role == "reviewer"
    assert AuditEvent.objects.filter(action=Action.MEMBER_ADDED).exists()
    html = as_user(dave).get(reverse("review:team", args=[team.pk])).content.decode()
    assert "newbie" in html


def test_a_team_page_of_another_team_is_404(team, eve, other_team, as_user):
    assert as_user(eve).get(reverse("review:team", args=[team.pk])).status_code == 404


def test_the_team_page_changes_required_approvals_for_admins(team, dave, as_user):
    as_user(dave).post(reverse("review:team_rules", args=[team.pk]), {"required_approvals": "3"})
    team.refresh_from_db()
    assert team.required_approvals == 3


def test_a_refused_team_change_is_a_403_page_that_says_why(team, alice, as_user):
    response = as_user(alice).post(
        reverse("review:team_rules", args=[team.pk]), {"required_approvals": "3"}
    )
    assert response.status_code == 403
    assert "Only team admins change the team" in response.content.decode()


def test_the_team_page_links_to_the_team_activity_of_the_review_app(team, dave, as_user):
    html = as_user(dave).get(reverse("review:team", args=[team.pk])).content.decode()
    assert f"{reverse('review:activity')}?team={team.pk}" in html
    assert f'action="{reverse("review:team_member", args=[team.pk])}"' in html


def test_the_last_admin_demoting_themselves_on_the_team_page_is_refused_with_a_message(
    team, dave, as_user
):
    url = reverse("review:team_member", args=[team.pk])
    response = as_user(dave).post(
        url, {"username": "dave", "role": "viewer", "action": "add"}, follow=True
    )
    assert "A team keeps at least one admin" in response.content.decode()
    assert team.memberships.get(user=dave).role == "admin"
    response = as_user(dave).post(url, {"username": "dave", "action": "remove"}, follow=True)
    assert "A team keeps at least one admin" in response.content.decode()
    assert team.memberships.filter(user=dave).exists()


@pytest.mark.parametrize("action", ["add", "remove"])
def test_a_member_who_is_not_an_admin_cannot_learn_whether_a_username_exists(
    team, alice, make_user, as_user, action
):
    make_user("existing")
    url = reverse("review:team_member", args=[team.pk])
    client = as_user(alice)
    answers = [
        client.post(url, {"username": name, "role": "viewer", "action": action})
        for name in ("existing", "no-such-user")
    ]
    assert [a.status_code for a in answers] == [403, 403]
    bodies = [
        _same_answer(a.content.decode(), name)
        for a, name in zip(answers, ("existing", "no-such-user"), strict=True)
    ]
    assert bodies[0] == bodies[1]
    assert "Only team admins manage members." in bodies[0]


def test_admins_get_one_answer_for_unknown_and_deactivated_accounts(team, dave, make_user, as_user):
    gone = make_user("gone")
    gone.is_active = False
    gone.save()
    url = reverse("review:team_member", args=[team.pk])
    client = as_user(dave)
    texts = []
    for name in ("gone", "never-existed"):
        page = client.post(url, {"username": name, "role": "viewer"}, follow=True)
        texts.append(_same_answer(page.content.decode(), name))
    assert "No active user named" in texts[0]
    assert texts[0] == texts[1]
    assert not team.memberships.filter(user=gone).exists()
