"""Login throttling: five failures lock one username out from one address, with a clear page."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.test import Client

from policyeditor.core.throttling import client_ip, lockout_message
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db

LIMIT = settings.AXES_FAILURE_LIMIT


def sign_in(client: Client, password: str, username: str = "alice", url: str = "/login/"):
    return client.post(url, {"username": username, "password": password})


def fail(client: Client, times: int, **kwargs) -> None:
    for attempt in range(1, times + 1):
        response = sign_in(client, "wrong-password", **kwargs)
        # The form again with the usual error, until the failure that reaches the limit.
        assert response.status_code == (429 if attempt >= LIMIT else 200)


def test_the_limit_is_five_failures():
    assert LIMIT == 5


def test_failures_below_the_limit_still_allow_the_right_password(client, alice):
    fail(client, LIMIT - 1)
    assert sign_in(client, PASSWORD).status_code == 302


def test_reaching_the_limit_pauses_sign_in_with_a_clear_429_page(client, alice):
    fail(client, LIMIT - 1)
    response = sign_in(client, "wrong-password")
    assert response.status_code == 429
    html = response.content.decode()
    assert "Too many failed sign-in attempts for this account from your address" in html
    assert "paused for 15 minutes" in html
    assert response["Retry-After"] == "900"


def test_the_right_password_is_refused_during_the_lockout(client, alice):
    fail(client, LIMIT)
    response = sign_in(client, PASSWORD)
    assert response.status_code == 429
    assert "_auth_user_id" not in client.session


def test_the_lockout_does_not_reach_the_same_user_from_another_address(client, alice):
    fail(client, LIMIT)
    other = Client(REMOTE_ADDR="192.0.2.7")
    assert sign_in(other, PASSWORD).status_code == 302


def test_the_lockout_does_not_reach_other_users_from_the_same_address(client, alice, bob):
    fail(client, LIMIT)
    assert sign_in(client, PASSWORD, username="bob").status_code == 302


def test_a_successful_sign_in_resets_the_count(client, alice):
    fail(client, LIMIT - 1)
    assert sign_in(client, PASSWORD).status_code == 302
    client.post("/logout/")
    fail(client, LIMIT - 1)
    assert sign_in(client, PASSWORD).status_code == 302


def test_the_admin_sign_in_counts_failures_too(client, make_user):
    make_user("root", is_staff=True, is_superuser=True)
    for _ in range(LIMIT - 1):
        sign_in(client, "nope", username="root", url="/admin/login/")
    response = sign_in(client, "nope", username="root", url="/admin/login/")
    assert response.status_code == 429
    assert sign_in(client, PASSWORD, username="root").status_code == 429


def test_the_message_names_the_pause_and_the_unlock_command():
    text = lockout_message()
    assert "15 minutes" in text and "axes_reset_username" in text


def test_the_client_address_is_remote_addr_without_trusted_proxies(rf):
    request = rf.get("/", REMOTE_ADDR="10.1.2.3", HTTP_X_FORWARDED_FOR="6.6.6.6")
    assert client_ip(request) == "10.1.2.3"


def test_the_client_address_comes_from_the_trusted_proxy_hop(rf, monkeypatch):
    monkeypatch.setattr("policyeditor.core.throttling.TRUSTED_PROXIES", 1)
    request = rf.get("/", REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR="6.6.6.6, 203.0.113.9")
    assert client_ip(request) == "203.0.113.9"


ADDRESS_LIMIT = settings.POLICYEDITOR_LOGIN_ADDRESS_FAILURE_LIMIT


def test_one_address_trying_many_usernames_is_paused_for_every_account(alice):
    spray = Client(REMOTE_ADDR="203.0.113.7")
    # Never more than one failure per username: the per-account lockout alone never triggers.
    for attempt in range(ADDRESS_LIMIT):
        response = sign_in(spray, "wrong-password", username=f"guess{attempt}")
        assert response.status_code == 200
    refused = sign_in(spray, "wrong-password", username="another-guess")
    assert refused.status_code == 429
    assert "from your address, for several accounts" in refused.content.decode()
    assert int(refused["Retry-After"]) > 0
    # Even the right password from that address is refused while the pause lasts ...
    assert sign_in(spray, PASSWORD).status_code == 429
    # ... but alice signs in from her own address.
    assert sign_in(Client(REMOTE_ADDR="198.51.100.2"), PASSWORD).status_code == 302
