"""Requests are throttled per token, with a 429 problem and Retry-After."""

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


@override_settings(POLICYEDITOR_API_THROTTLE_RATE="1/minute")
def test_each_token_has_its_own_budget(api, alice):
    assert api.get("/api/v1/drafts").status_code == 200
    assert api.get("/api/v1/drafts").status_code == 429
    other = ApiClient(ApiToken.issue(alice, "second")[1])
    assert other.get("/api/v1/drafts").status_code == 200


@override_settings(POLICYEDITOR_API_THROTTLE_RATE=None)
def test_throttling_can_be_turned_off(api):
    assert all(api.get("/api/v1/drafts").status_code == 200 for _ in range(5))
