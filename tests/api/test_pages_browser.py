"""The API token settings page and the API docs page in a real browser (CSP on, no console errors)."""

from __future__ import annotations

import pytest

from policyeditor.api.models import ApiToken

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_user_creates_a_token_sees_it_once_and_revokes_it(alice_page, alice):
    page = alice_page
    page.goto("/api/settings/tokens/")
    page.get_by_label("Token name").fill("GitHub Actions")
    page.get_by_role("button", name="Create token").click()
    page.wait_for_load_state("networkidle")
    shown = page.get_by_label("Your new token").input_value()
    assert shown.startswith("pe_")
    assert ApiToken.objects.matching(shown).exists()
    page.goto("/api/settings/tokens/")
    assert shown not in page.content()
    page.get_by_role("button", name="Revoke token GitHub Actions").click()
    page.wait_for_load_state("networkidle")
    assert "revoked" in page.content()
    assert not ApiToken.objects.filter(user=alice).exists()
    assert page.console_errors == []


def test_the_docs_page_renders_without_console_errors(page):
    page.goto("/api/docs/")
    assert page.get_by_role("heading", name="POST /api/v1/validate").is_visible()
    assert page.console_errors == []
