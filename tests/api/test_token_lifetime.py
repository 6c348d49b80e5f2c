"""API tokens expire (90 days unless chosen otherwise) and die with a password change."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client, override_settings
from django.utils import timezone

from policyeditor.api.models import ApiToken
from policyeditor.editor.services import create_draft
from policyeditor.editor.starters import get_starter
from policyeditor.review.models import Action, AuditEvent

pytestmark = pytest.mark.django_db


def token_client(plain: str) -> Client:
    return Client(HTTP_AUTHORIZATION=f"Token {plain}")


def test_a_new_token_expires_in_90_days_and_the_api_says_when(alice):
    row, plain = ApiToken.issue(alice, "ci")
    assert timedelta(days=89, hours=23) < row.expires - timezone.now() <= timedelta(days=90)
    response = token_client(plain).get("/api/v1/drafts")
    assert response.status_code == 200
    assert response["Policyeditor-Token-Expires"] == row.expires.isoformat()


def test_an_expired_token_is_refused_with_a_401_that_says_so(alice):
    row, plain = ApiToken.issue(alice, "old")
    ApiToken.objects.filter(pk=row.pk).update(expires=timezone.now() - timedelta(seconds=1))
    response = token_client(plain).get("/api/v1/drafts")
    assert response.status_code == 401
    assert "Token expired on" in response.json()["detail"]


@override_settings(POLICYEDITOR_API_TOKEN_DAYS=0)
def test_the_default_lifetime_is_a_setting_and_0_means_no_expiry(alice):
    row, plain = ApiToken.issue(alice, "forever")
    assert row.expires is None
    assert token_client(plain).get("/api/v1/drafts")["Policyeditor-Token-Expires"] == "never"


def test_the_tokens_page_offers_a_lifetime_and_shows_each_expiry(alice_client):
    response = alice_client.post("/api/settings/tokens/", {"name": "laptop", "expires_in": "30"})
    assert response.status_code == 201
    row = ApiToken.objects.get(name="laptop")
    assert timedelta(days=29) < row.expires - timezone.now() <= timedelta(days=30)
    never = alice_client.post("/api/settings/tokens/", {"name": "robot", "expires_in": "0"})
    assert never.status_code == 201 and ApiToken.objects.get(name="robot").expires is None
    page = alice_client.get("/api/settings/tokens/").content.decode()
    assert '<th scope="col">Expires</th>' in page
    assert row.expires.strftime("%Y-%m-%d") in page


def test_changing_the_password_revokes_every_token_of_the_user(alice, bob):
    _, first = ApiToken.issue(alice, "one")
    _, second = ApiToken.issue(alice, "two")
    _, bobs = ApiToken.issue(bob, "bob")
    alice.set_password("a-brand-new-password-42")
    alice.save()
    assert token_client(first).get("/api/v1/drafts").status_code == 401
    assert token_client(second).get("/api/v1/drafts").status_code == 401
    assert token_client(bobs).get("/api/v1/drafts").status_code == 200


def test_saving_a_user_without_a_new_password_keeps_the_tokens(alice):
    _, plain = ApiToken.issue(alice, "one")
    alice.first_name = "Alice"
    alice.save()
    assert token_client(plain).get("/api/v1/drafts").status_code == 200


def test_deleting_a_draft_through_the_api_records_who_deleted_it(alice):
    draft = create_draft(alice, get_starter("replica-limit").documents())
    _, plain = ApiToken.issue(alice, "one")
    response = token_client(plain).delete(f"/api/v1/drafts/{draft.pk}")
    assert response.status_code == 204
    event = AuditEvent.objects.get(action=Action.DELETED)
    assert event.actor == alice
