"""Tests for the admin pages of teams and members."""

from __future__ import annotations

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_teams_and_memberships_are_managed_in_the_admin(admin_client, team):
    html = admin_client.get(reverse("admin:teams_team_change", args=[team.pk])).content.decode()
    assert "team-a" in html and "Memberships" in html
    assert admin_client.get(reverse("admin:teams_membership_changelist")).status_code == 200
