"""Tests for the team pages (mounted by the review app at /reviews/teams/)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from policyeditor.review.models import Action, AuditEvent

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
