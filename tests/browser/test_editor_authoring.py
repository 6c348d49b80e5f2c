"""Authoring a policy in a real browser: form, live errors, rows, YAML mode, save."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from policyeditor.editor.models import Draft
from policyeditor.editor.services import save_draft
from tests.browser.editor_helpers import cel_editor, cel_host, fill_cel, open_minimal_draft, tick
from tests.conftest import screenshot, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _new_vap(page, name: str = "replicas.example.com") -> None:
    open_minimal_draft(page, name)


def _validation_expression(page, index: int = 0):
    section = page.locator('details[data-section="validations"]')
    return section.locator("textarea.cel").nth(index * 2)


def test_a_vap_built_from_scratch_shows_an_error_while_typing_and_loses_it_when_fixed(alice_page):
    page = alice_page
    _new_vap(page)
    expression = _validation_expression(page)
    fill_cel(expression, "object.spec.replicas <= 5)")
    field_error = page.locator(
        'details[data-section="validations"] .live-errors .field-error'
    ).first
    expect(field_error).to_contain_text("Syntax error")
    expect(page.locator("#status-badge")).to_have_text("1 error")
    expect(expression).to_have_attribute("aria-invalid", "true")
    screenshot(page, "editor-live-error")
    fill_cel(expression, "object.spec.replicas <= 5")
    expect(page.locator("#status-badge")).to_have_text("valid for Kubernetes 1.37")
    expect(field_error).to_have_count(0)
    assert page.console_errors == []


def test_adding_a_validation_row_without_reload_and_saving_it_creates_a_revision(alice_page):
    page = alice_page
    _new_vap(page)
    page.get_by_role("button", name="+ Add validation").click()
    second = _validation_expression(page, 1)
    expect(second).to_be_visible()
    fill_cel(second, "object.spec.replicas > 0")
    page.locator('details[data-section="validations"] input[name$=".message"]').nth(1).fill(
        "need a replica"
    )
    expect(page.locator("#yaml-preview")).to_contain_text("object.spec.replicas > 0")
    page.get_by_label("Revision note").fill("add lower bound")
    page.keyboard.press("Control+s")
    expect(page.locator("#save-status")).to_contain_text("Saved revision 2")
    draft = Draft.objects.get(name="replicas.example.com")
    validations = draft.documents[0]["spec"]["validations"]
    assert validations[1] == {"expression": "object.spec.replicas > 0", "message": "need a replica"}
    assert draft.revisions.get(number=2).note == "add lower bound"


def test_yaml_mode_edits_update_the_form_and_back(alice_page):
    page = alice_page
    _new_vap(page)
    page.get_by_role("button", name="Edit YAML").click()
    editor = page.get_by_label("YAML (edits update the form)")
    text = editor.input_value().replace("at most 5 replicas", "five is the limit")
    editor.fill(text)
    message = page.locator('details[data-section="validations"] input[name$=".message"]').first
    expect(message).to_have_value("five is the limit")
    editor.fill("kind: [unclosed")
    expect(page.locator("#yaml-problem")).not_to_be_empty()
    expect(message).to_have_value("five is the limit")
    page.get_by_role("button", name="Back to preview").click()
    expect(page.locator("#yaml-preview")).to_contain_text("five is the limit")
    screenshot(page, "editor-yaml")


def test_cel_completion_offers_fields_of_the_matched_resource(alice_page):
    page = alice_page
    _new_vap(page, "complete.example.com")
    expression = _validation_expression(page)
    fill_cel(expression, "")
    page.keyboard.type("object.spec.rep")
    options = page.locator(".cm-tooltip-autocomplete [role=option]")
    expect(options.first).to_contain_text("replicas")
    page.wait_for_timeout(150)  # CodeMirror ignores Enter for 75 ms after the list opens
    page.keyboard.press("Enter")
    expect(expression).to_have_value("object.spec.replicas")
    page.keyboard.type(" > 0 && request.")
    expect(options.filter(has_text="userInfo")).to_have_count(1)
    screenshot(page, "editor-completion")
    page.keyboard.press("Escape")
    expect(options).to_have_count(0)


def test_cel_fields_highlight_syntax_brackets_and_the_error_position(alice_page):
    page = alice_page
    _new_vap(page, "highlight.example.com")
    expression = _validation_expression(page)
    editor = cel_editor(expression)
    fill_cel(expression, "(object.spec.replicas <= 5 && 'x' == y")
    expect(editor.locator(".cel-root").first).to_have_text("object")
    expect(editor.locator(".cel-string")).to_have_text("'x'")
    expect(editor.locator(".cel-error")).to_have_count(1)
    page.keyboard.press("Home")
    expect(editor.locator(".cm-nonmatchingBracket")).to_have_text("(")
    fill_cel(expression, "(object.spec.replicas <= 5)")
    expect(page.locator("#status-badge")).to_have_text("valid for Kubernetes 1.37")
    expect(editor.locator(".cel-error")).to_have_count(0)
    page.keyboard.press("End")
    expect(editor.locator(".cm-matchingBracket")).to_have_count(2)
    expect(cel_host(expression).locator(".cm-lineNumbers")).to_be_visible()
    assert page.console_errors == []


def test_unsaved_edits_are_kept_in_the_browser_and_offered_back_after_a_reload(alice_page):
    page = alice_page
    _new_vap(page, "autosave.example.com")
    message = page.locator('details[data-section="validations"] input[name$=".message"]').first
    message.fill("typed but never saved")
    expect(page.locator("#yaml-preview")).to_contain_text("typed but never saved")
    page.once("dialog", lambda dialog: dialog.accept())  # the unsaved-changes guard asks first
    page.reload()
    banner = page.locator("#restore-banner")
    expect(banner).to_be_visible()
    banner.get_by_role("button", name="Restore them").click()
    expect(message).to_have_value("typed but never saved")
    assert Draft.objects.get(name="autosave.example.com").revision == 1


def test_on_a_narrow_screen_the_preview_is_a_tab_in_place_of_the_form(alice_page):
    page = alice_page
    page.set_viewport_size({"width": 900, "height": 800})
    _new_vap(page, "narrow.example.com")
    preview = page.locator("#preview-pane")
    expect(preview).to_be_hidden()
    page.get_by_role("button", name="Preview").click()
    expect(preview).to_be_visible()
    expect(page.locator("#documents")).to_be_hidden()
    screenshot(page, "editor-narrow-preview")
    page.get_by_role("button", name="Form", exact=True).click()
    expect(page.locator("#documents")).to_be_visible()


def test_renaming_the_policy_renames_it_in_its_binding(alice_page):
    page = alice_page
    _new_vap(page, "before.example.com")
    page.locator('details[data-section="basics"]').get_by_label("Name").fill("after.example.com")
    expect(page.get_by_label("Policy name")).to_have_value("after.example.com")
    expect(page.locator("#status-badge")).to_have_text("valid for Kubernetes 1.37")


def test_the_editor_follows_the_system_dark_mode(alice_page):
    page = alice_page
    page.emulate_media(color_scheme="dark")
    page.goto("/drafts/new/")
    page.get_by_role("button", name="Use template Replica limit with params").click()
    page.wait_for_url("**/drafts/*/")
    expect(page.locator("#status-badge")).to_have_text("valid for Kubernetes 1.37")
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background == "rgb(15, 20, 26)"
    screenshot(page, "editor-dark")


def test_picking_a_built_in_resource_fills_its_group_and_version(alice_page):
    page = alice_page
    _new_vap(page, "picker.example.com")
    match = page.locator('details[data-section="match"]')
    match.locator(":scope > summary").click()
    match.get_by_role("button", name="+ Add rule").click()
    rule = match.locator(".row").nth(1)
    rule.get_by_label("Resources").fill("pods")
    rule.get_by_label("Resources").press("Tab")
    expect(rule.get_by_label("API groups")).to_have_value('""')
    expect(rule.get_by_label("API versions")).to_have_value("v1")
    tick(rule.get_by_label("CREATE"))
    expect(page.locator("#yaml-preview")).to_contain_text("- pods")
    # object.spec.replicas does not exist on a Pod: valid, but the type check warns.
    expect(page.locator("#status-badge")).to_have_text("valid for Kubernetes 1.37, 1 warning")


def test_unsaved_edits_kept_on_the_server_are_offered_in_another_browser_and_restored(
    alice_page, browser, live_server
):
    page = alice_page
    _new_vap(page, "server-autosave.example.com")
    message = page.locator('details[data-section="validations"] input[name$=".message"]').first
    message.fill("typed on the laptop")
    expect(page.locator("#autosave-status")).to_have_text("Unsaved changes kept on the server.")
    other = browser.new_context(base_url=live_server.url, viewport={"width": 1440, "height": 900})
    try:
        tab = other.new_page()
        sign_in(tab, "alice")
        tab.goto(page.url)
        banner = tab.locator("#restore-banner")
        expect(banner).to_be_visible()
        expect(banner).to_contain_text("(based on r1) were kept on the server.")
        banner.get_by_role("button", name="Restore them").click()
        restored = tab.locator('details[data-section="validations"] input[name$=".message"]').first
        expect(restored).to_have_value("typed on the laptop")
        tab.get_by_role("button", name="Save").click()
        expect(tab.locator("#save-status")).to_contain_text("Saved revision 2")
        saved = Draft.objects.get(name="server-autosave.example.com")
        assert saved.documents[0]["spec"]["validations"][0]["message"] == "typed on the laptop"
        assert not saved.autosaves.exists()
    finally:
        other.close()


def test_restoring_a_state_kept_before_another_save_is_a_conflict_not_an_overwrite(
    alice_page, alice, browser, live_server
):
    page = alice_page
    _new_vap(page, "stale-autosave.example.com")
    page.locator('details[data-section="validations"] input[name$=".message"]').first.fill(
        "kept at r1"
    )
    expect(page.locator("#autosave-status")).to_have_text("Unsaved changes kept on the server.")
    draft = Draft.objects.get(name="stale-autosave.example.com")
    documents = draft.documents
    documents[0]["metadata"]["labels"] = {"saved": "elsewhere"}
    save_draft(draft, documents, expected_revision=1, author=alice, note="meanwhile")
    other = browser.new_context(base_url=live_server.url, viewport={"width": 1440, "height": 900})
    try:
        tab = other.new_page()
        sign_in(tab, "alice")
        tab.goto(page.url)
        tab.locator("#restore-banner").get_by_role("button", name="Restore them").click()
        message = tab.locator('details[data-section="validations"] input[name$=".message"]')
        expect(message.first).to_have_value("kept at r1")
        tab.get_by_role("button", name="Save").click()
        expect(tab.locator("#save-status")).to_contain_text("Open the latest revision")
        draft.refresh_from_db()
        assert draft.revision == 2
        assert draft.documents[0]["metadata"]["labels"] == {"saved": "elsewhere"}
    finally:
        other.close()
