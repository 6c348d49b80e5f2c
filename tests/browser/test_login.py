"""Signing in through a real browser."""

from __future__ import annotations

import pytest

from tests.conftest import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_user_signs_in_and_sees_the_drafts_list(page, alice):
    sign_in(page, "alice")
    assert page.url.endswith("/drafts/")
    assert page.get_by_role("heading", name="Drafts").is_visible()
    assert page.console_errors == []


def test_a_wrong_password_keeps_the_user_on_the_login_page_with_a_message(page, alice):
    sign_in(page, "alice", "wrong-password")
    assert "/login/" in page.url
    assert page.get_by_role("alert").is_visible()


def test_the_login_form_works_from_the_keyboard_alone(page, alice):
    from tests.conftest import PASSWORD

    page.goto("/login/")
    # The username field has the focus as soon as the page opens.
    assert page.evaluate("document.activeElement.name") == "username"
    page.keyboard.type("alice")
    page.keyboard.press("Tab")
    page.keyboard.type(PASSWORD)
    page.keyboard.press("Enter")
    page.wait_for_url("**/drafts/")
