"""Login, the login requirement on every page, and the health check."""

from __future__ import annotations

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_login_page_is_served_to_anonymous_users(client):
    response = client.get(reverse("login"))
    assert response.status_code == 200
    assert b"Sign in" in response.content


def test_home_requires_a_signed_in_user(client):
    response = client.get("/")
    assert response.status_code == 302
    assert response.url.startswith(reverse("login"))


def test_admin_pages_are_not_open_to_anonymous_users(client):
    response = client.get("/admin/")
    assert response.status_code == 302


def test_signing_in_with_the_right_password_leads_to_the_drafts_list(client, alice):
    from tests.conftest import PASSWORD

    response = client.post(
        reverse("login"), {"username": "alice", "password": PASSWORD}, follow=True
    )
    assert response.status_code == 200
    assert response.redirect_chain[-1][0] == reverse("editor:draft_list")


def test_signing_in_with_a_wrong_password_is_refused_with_a_message(client, alice):
    response = client.post(reverse("login"), {"username": "alice", "password": "nope"})
    assert response.status_code == 200
    assert b"Please enter a correct username and password" in response.content


def test_signed_in_pages_carry_the_csrf_header_and_bundled_htmx(alice_client):
    response = alice_client.get(reverse("editor:draft_list"))
    html = response.content.decode()
    assert 'hx-headers=\'{"X-CSRFToken": "' in html
    assert "/static/django_htmx/htmx" in html
    assert "unpkg.com" not in html and "cdn" not in html.lower()


def test_every_response_carries_a_content_security_policy_without_inline_script(client):
    policy = client.get(reverse("login"))["Content-Security-Policy"]
    assert "script-src 'self'" in policy
    assert "unsafe-inline" not in policy


def test_health_check_reports_the_database_without_login(client):
    response = client.get(reverse("healthz"))
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok"}


def test_sign_out_ends_the_session(alice_client):
    response = alice_client.post(reverse("logout"))
    assert response.status_code == 302
    assert alice_client.get("/").status_code == 302
