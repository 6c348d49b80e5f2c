"""Personal tokens and sessions authenticate API requests; anything else is a 401 problem."""

from __future__ import annotations

import pytest
from django.urls import reverse

from policyeditor.api.models import ApiToken, digest
from tests.api.conftest import ApiClient

pytestmark = pytest.mark.django_db

DRAFTS = "/api/v1/drafts"


def test_a_request_without_credentials_is_a_401_problem_with_a_token_challenge(anonymous):
    response = anonymous.get(DRAFTS)
    assert response.status_code == 401
    assert response["Content-Type"] == "application/problem+json"
    assert response["WWW-Authenticate"] == 'Token realm="api"'
    body = response.json()
    assert body["status"] == 401
    assert body["type"].endswith("/not-authenticated")
    assert body["detail"] == "Authentication credentials were not provided."


def test_api_paths_are_not_redirected_to_the_login_page(anonymous):
    assert anonymous.post("/api/v1/validate", {}).status_code == 401


def test_a_valid_token_authenticates_as_its_user(api, alice):
    response = api.get(DRAFTS)
    assert response.status_code == 200
    assert response.json()["results"] == []


def test_bearer_is_accepted_as_the_token_keyword(alice_token):
    client = ApiClient(None)
    response = client.get(DRAFTS, headers={"Authorization": f"Bearer {alice_token}"})
    assert response.status_code == 200


def test_an_unknown_token_is_rejected(anonymous):
    response = anonymous.get(DRAFTS, headers={"Authorization": "Token pe_not-a-real-token"})
    assert response.status_code == 401
    assert response.json()["detail"] == "Invalid or revoked token."


def test_a_header_with_extra_words_is_rejected_with_the_reason(alice_token):
    response = ApiClient(None).get(DRAFTS, headers={"Authorization": f"Token {alice_token} more"})
    assert response.status_code == 401
    assert "expected 'Token <token>'" in response.json()["detail"]


def test_a_revoked_token_no_longer_authenticates(api, alice):
    ApiToken.objects.filter(user=alice).delete()
    assert api.get(DRAFTS).status_code == 401


def test_an_inactive_users_token_is_rejected(api, alice):
    alice.is_active = False
    alice.save()
    response = api.get(DRAFTS)
    assert response.status_code == 401
    assert response.json()["detail"] == "User inactive or deleted."


def test_only_the_digest_of_a_token_is_stored(alice):
    row, plain = ApiToken.issue(alice, "ci")
    row.refresh_from_db()
    assert plain.startswith("pe_") and len(plain) > 40
    assert row.digest == digest(plain) and plain not in row.digest
    assert row.prefix == plain[:10]


def test_using_a_token_records_when_it_was_last_used(api, alice):
    assert ApiToken.objects.get(user=alice).last_used is None
    api.get(DRAFTS)
    assert ApiToken.objects.get(user=alice).last_used is not None


def test_a_browser_session_authenticates_reads(alice_client):
    assert alice_client.get(DRAFTS).status_code == 200


def test_a_session_write_without_the_csrf_token_is_refused(alice):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    response = client.post(reverse("api:cel"), {"expression": "1"}, content_type="application/json")
    assert response.status_code == 403
    assert "CSRF" in response.json()["detail"]
