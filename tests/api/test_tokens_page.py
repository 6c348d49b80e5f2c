"""The settings page: create a token (shown once), list tokens, revoke them."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from policyeditor.api.models import ApiToken
from tests.api.conftest import ApiClient

pytestmark = pytest.mark.django_db

PAGE = reverse("api:tokens")


def test_the_page_requires_a_signed_in_user(client):
    response = client.get(PAGE)
    assert response.status_code == 302
    assert response.url.startswith(reverse("login"))


def test_creating_a_token_shows_it_once_and_it_works(alice_client, alice):
    response = alice_client.post(PAGE, {"name": "GitHub Actions"})
    assert response.status_code == 201
    assert response["Cache-Control"] == "no-store"
    plain = re.search(rb'value="(pe_[A-Za-z0-9_-]+)"', response.content).group(1).decode()
    assert ApiClient(plain).get("/api/v1/drafts").status_code == 200
    again = alice_client.get(PAGE)
    assert plain.encode() not in again.content
    assert b"GitHub Actions" in again.content
    assert plain[:10].encode() in again.content


def test_a_token_needs_a_name(alice_client, alice):
    response = alice_client.post(PAGE, {"name": "  "})
    assert response.status_code == 400
    assert b"This field is required." in response.content
    assert not ApiToken.objects.filter(user=alice).exists()


def test_revoking_a_token_stops_it_from_authenticating(alice_client, alice):
    row, plain = ApiToken.issue(alice, "laptop")
    response = alice_client.post(reverse("api:token_revoke", args=[row.pk]), follow=True)
    assert response.status_code == 200
    assert "revoked" in response.content.decode()
    assert ApiClient(plain).get("/api/v1/drafts").status_code == 401


def test_nobody_can_revoke_someone_elses_token(alice_client, bob):
    row, plain = ApiToken.issue(bob, "bob's")
    response = alice_client.post(reverse("api:token_revoke", args=[row.pk]))
    assert response.status_code == 404
    assert ApiClient(plain).get("/api/v1/drafts").status_code == 200


def test_revoking_needs_a_post(alice_client, alice):
    row, _ = ApiToken.issue(alice, "laptop")
    assert alice_client.get(reverse("api:token_revoke", args=[row.pk])).status_code == 405
    assert ApiToken.objects.filter(pk=row.pk).exists()


def test_the_page_lists_only_the_users_own_tokens(alice_client, alice, bob):
    ApiToken.issue(alice, "alice-ci")
    ApiToken.issue(bob, "bob-ci")
    content = alice_client.get(PAGE).content
    assert b"alice-ci" in content and b"bob-ci" not in content


def test_the_number_of_tokens_per_user_is_bounded(alice_client, alice, monkeypatch):
    monkeypatch.setattr("policyeditor.api.views_tokens.MAX_TOKENS", 2)
    ApiToken.issue(alice, "one")
    ApiToken.issue(alice, "two")
    response = alice_client.post(PAGE, {"name": "three"})
    assert response.status_code == 400
    assert b"revoke some first" in response.content
    assert ApiToken.objects.filter(user=alice).count() == 2


def test_the_create_api_token_command_prints_a_working_token(alice, capsys):
    from django.core.management import call_command

    call_command("create_api_token", "alice", "--name", "readme")
    plain = capsys.readouterr().out.strip()
    assert ApiClient(plain).get("/api/v1/drafts").status_code == 200
    assert ApiToken.objects.get(user=alice).name == "readme"


def test_the_create_api_token_command_names_a_missing_user():
    from django.core.management import CommandError, call_command

    with pytest.raises(CommandError, match="no user named 'nobody'"):
        call_command("create_api_token", "nobody")


def test_staff_can_revoke_tokens_in_the_admin_but_not_mint_them(client, make_user, alice):
    row, plain = ApiToken.issue(alice, "laptop")
    client.force_login(make_user("root", is_staff=True, is_superuser=True))
    assert client.get(reverse("admin:api_apitoken_changelist")).status_code == 200
    assert client.get(reverse("admin:api_apitoken_add")).status_code == 403
    response = client.post(reverse("admin:api_apitoken_delete", args=[row.pk]), {"post": "yes"})
    assert response.status_code == 302
    assert ApiClient(plain).get("/api/v1/drafts").status_code == 401
