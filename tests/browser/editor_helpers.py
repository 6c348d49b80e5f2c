"""Helpers for driving the editor in browser tests: its CodeMirror CEL fields, its checkboxes."""

from __future__ import annotations

from playwright.sync_api import Locator, Page, expect


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


def tick(checkbox: Locator, checked: bool = True) -> None:
    """Tick (or untick) a checkbox of the form from the keyboard, as a keyboard user would.

    Live validation may place an error above the box at any moment (a new row stops being quiet
    once it is typed in); a mouse click aimed at where the box was then misses it (seen once in
    CI, under load: "Clicking the checkbox did not change its state").
    """
    if checkbox.is_checked() != checked:
        checkbox.press("Space")
    expect(checkbox).to_be_checked(checked=checked)


# Two cores run the server, chromium and the tests: allow live updates a little longer.
expect.set_options(timeout=10_000)


def open_minimal_draft(page: Page, name: str, kind: str = "VAP", username: str = "alice") -> None:
    """Open a new draft holding the minimal working policy of `kind` (blank_documents).

    "From scratch" starts blank; tests about editing a working policy start from this one.
    """
    from django.contrib.auth import get_user_model

    from policyeditor.editor.services import create_draft
    from policyeditor.editor.starters import blank_documents

    user = get_user_model().objects.get(username=username)
    draft = create_draft(user, blank_documents(kind, name), kind=kind)
    page.goto(f"/drafts/{draft.pk}/")
    expect(page.locator("#status-badge")).to_have_text("valid for Kubernetes 1.37")


def save_denied_seven_case(page: Page) -> None:
    """From the params template, try a 7-replica Deployment (denied) and save it as "denies seven"."""
    page.goto("/drafts/new/")
    page.get_by_role("button", name="Use template Replica limit with params").click()
    page.wait_for_url("**/drafts/*/")
    page.keyboard.press("Alt+2")
    page.get_by_label("object", exact=True).fill(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\n"
        "spec: {replicas: 7}\n"
    )
    expect(page.locator("#try-result .decision-head")).to_contain_text("denied")
    page.get_by_label("Test case name").fill("denies seven")
    page.get_by_role("button", name="Save as test case").click()
