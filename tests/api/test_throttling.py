"""Requests are throttled per token and per user, with a 429 problem and Retry-After."""

from __future__ import annotations

import pytest
from django.test import override_settings

from policyeditor.api.models import ApiToken
from tests.api.conftest import ApiClient

pytestmark = pytest.mark.django_db


@override_settings(POLICYEDITOR_API_THROTTLE_RATE="2/minute")
def test_a_token_over_its_rate_gets_a_429_problem_with_retry_after(api):
    assert api.get("/api/v1/drafts").status_code == 200
    assert api.get("/api/v1/drafts").status_code == 200
    response = api.get("/api/v1/drafts")
    assert response.status_code == 429
    assert response["Content-Type"] == "application/problem+json"
    assert 0 < int(response["Retry-After"]) <= 60
    assert response.json()["type"].endswith("/throttled")


@override_settings(
    POLICYEDITOR_API_THROTTLE_RATE="1/minute", POLICYEDITOR_API_USER_THROTTLE_RATE="10/minute"
)
def test_each_token_has_its_own_budget(api, alice):
    assert api.get("/api/v1/drafts").status_code == 200
    assert api.get("/api/v1/drafts").status_code == 429
    other = ApiClient(ApiToken.issue(alice, "second")[1])
    assert other.get("/api/v1/drafts").status_code == 200


@override_settings(POLICYEDITOR_API_THROTTLE_RATE="3/minute")
def test_a_user_with_many_tokens_still_has_one_budget(alice, bob):
    tokens = [ApiClient(ApiToken.issue(alice, f"t{n}")[1]) for n in range(6)]
    statuses = [client.get("/api/v1/drafts").status_code for client in tokens]
    assert statuses == [200, 200, 200, 429, 429, 429]
    # Another user's budget is their own.
    assert ApiClient(ApiToken.issue(bob, "b")[1]).get("/api/v1/drafts").status_code == 200


@override_settings(POLICYEDITOR_API_THROTTLE_RATE="2/minute")
def test_a_budget_spent_at_the_end_of_a_window_is_not_whole_again_at_the_start_of_the_next():
    from policyeditor.core.rate_limit import hit

    start = 6_000_000.0  # the start of a minute window
    assert hit("k", 2, 60, now=start + 59).allowed
    assert hit("k", 2, 60, now=start + 59.5).allowed
    assert not hit("k", 2, 60, now=start + 59.9).allowed
    # One second into the next window almost all of the previous one still counts.
    refused = hit("k", 2, 60, now=start + 61)
    assert not refused.allowed and refused.wait == pytest.approx(59)
    # Half-way through, half of it has slid out: one request fits.
    assert hit("k", 2, 60, now=start + 90).allowed
    assert not hit("k", 2, 60, now=start + 91).allowed


@override_settings(POLICYEDITOR_API_THROTTLE_RATE=None)
def test_throttling_can_be_turned_off(api):
    assert all(api.get("/api/v1/drafts").status_code == 200 for _ in range(5))
