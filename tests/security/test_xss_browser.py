"""The XSS payloads in a real chromium: shown as text, no dialog fires, no CSP violation."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from policyeditor.editor.services import create_draft, save_draft
from tests.security.hostile import as_yaml
from tests.security.xss import ALL, SCRIPT, deployment, hostile_documents

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def watched_page(alice_page):
    """alice's tab, recording every dialog (alert, confirm, prompt) a payload might open."""
    alice_page.dialogs = []

    def on_dialog(dialog) -> None:
        alice_page.dialogs.append(dialog.message)
        dialog.dismiss()

    alice_page.on("dialog", on_dialog)
    return alice_page


@pytest.fixture
def hostile_draft(alice):
    draft = create_draft(alice, hostile_documents(), name=ALL, description=ALL, note=ALL)
    changed = hostile_documents()
    changed[0]["spec"]["validations"][0]["message"] = ALL + " (changed)"
    return save_draft(draft, changed, expected_revision=1, author=alice, note=ALL, name=ALL)


def assert_quiet(page) -> None:
    """No payload ran: no dialog, and no inline script or handler was even attempted (CSP)."""
    page.wait_for_timeout(300)  # let any injected handler (img onerror) fire before judging
    assert page.dialogs == []
    assert [e for e in page.console_errors if "Content Security Policy" in e] == []


def test_the_drafts_list_shows_the_payloads_as_text(watched_page, hostile_draft):
    page = watched_page
    page.goto("/drafts/")
    expect(page.locator("main")).to_contain_text(SCRIPT)
    assert_quiet(page)


def test_the_editor_and_its_try_it_tab_show_the_payloads_as_text(watched_page, hostile_draft):
    page = watched_page
    page.goto(f"/drafts/{hostile_draft.pk}/")
    expect(page.locator("#yaml-preview")).to_contain_text(SCRIPT)
    page.keyboard.press("Alt+2")
    expect(page.get_by_role("tab", name="Try it")).to_have_attribute("aria-selected", "true")
    page.get_by_label("object", exact=True).fill(as_yaml(deployment()))
    result = page.locator("#try-result")
    expect(result).to_contain_text("denied")
    expect(result).to_contain_text(SCRIPT)
    assert_quiet(page)


def test_the_review_page_shows_notes_diff_and_comments_as_text(watched_page, hostile_draft):
    page = watched_page
    page.goto(f"/reviews/drafts/{hostile_draft.pk}/r/2/")
    expect(page.locator("main")).to_contain_text(SCRIPT)
    assert_quiet(page)


def test_the_watcher_would_see_a_dialog_if_one_fired(watched_page):
    page = watched_page
    page.goto("/drafts/")
    page.evaluate("alert('probe')")
    assert page.dialogs == ["probe"]
