"""Helpers for driving the editor's CodeMirror CEL fields in browser tests."""

from __future__ import annotations

from playwright.sync_api import Locator, expect


def cel_host(textarea: Locator) -> Locator:
    """The element whose shadow root holds the CodeMirror editor of a CEL textarea."""
    return textarea.locator("xpath=following-sibling::div[contains(@class,'cm-host')]")


def cel_editor(textarea: Locator) -> Locator:
    """The CodeMirror content element that edits a CEL textarea."""
    return cel_host(textarea).locator(".cm-content")


def fill_cel(textarea: Locator, text: str) -> None:
    """Replace a CEL field's text by typing into its editor, as a user would."""
    content = cel_editor(textarea)
    content.click()
    content.press("Control+a")
    content.press("Delete")
    if text:
        content.page.keyboard.insert_text(text)
    expect(textarea).to_have_value(text)


# Two cores run the server, chromium and the tests: allow live updates a little longer.
expect.set_options(timeout=10_000)
