"""The YAML editor in a real browser: CodeMirror, completion, inline diagnostics, hover, switching."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from policyeditor.editor.models import Draft
from tests.browser.editor_helpers import open_minimal_draft
from tests.conftest import screenshot
from tests.sources import REPLICA_LIMIT_POLICY_YAML as POLICY

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _new_vap(page, name: str = "replica-limit.example.com") -> None:
    # "From scratch" is blank: start from the minimal working policy.
    open_minimal_draft(page, name)


def _open_yaml(page, text: str | None = None):
    """Open the YAML editor (optionally replacing its text); returns its CodeMirror content."""
    page.get_by_role("button", name="Edit YAML").click()
    content = page.locator(".cm-yaml-host .cm-content")
    expect(content).to_be_visible()
    if text is not None:
        page.get_by_label("YAML (edits update the form)").fill(text)
        expect(content).to_contain_text("Replica limit, as kept in Git.")
    return content


def _type_at_end(page, content, text: str) -> None:
    content.click()
    page.keyboard.press("Control+End")
    page.keyboard.insert_text(text)


def test_the_yaml_editor_completes_keys_and_enum_values_from_the_schema(alice_page):
    page = alice_page
    _new_vap(page)
    content = _open_yaml(page, POLICY)
    _type_at_end(page, content, "  match")
    page.keyboard.press("Control+Space")
    options = page.locator(".cm-tooltip-autocomplete li")
    expect(options.filter(has_text="matchConditions")).to_be_visible()
    expect(options.filter(has_text="validations")).to_have_count(0)
    page.keyboard.press("Escape")
    page.keyboard.press("Control+a")
    page.keyboard.insert_text(POLICY.replace("failurePolicy: Fail", "failurePolicy: I"))
    # the cursor after "I": ask for the values the API server accepts
    view_pos = POLICY.index("failurePolicy: Fail") + len("failurePolicy: I")
    page.evaluate(
        "(pos) => { const v = PolicyEditorCM.viewOf(document.getElementById('yaml-edit'));"
        " v.dispatch({selection: {anchor: pos}}); v.focus(); }",
        view_pos,
    )
    page.keyboard.press("Control+Space")
    expect(options.filter(has_text="Ignore")).to_be_visible()
    page.wait_for_timeout(150)  # CodeMirror ignores keys in the first 75 ms of a new list
    page.keyboard.press("Enter")
    expect(page.get_by_label("YAML (edits update the form)")).to_have_value(
        POLICY.replace("failurePolicy: Fail", "failurePolicy: Ignore")
    )
    assert not page.console_errors


def test_cel_inside_expression_values_is_highlighted_and_completes(alice_page):
    page = alice_page
    _new_vap(page)
    content = _open_yaml(page, POLICY)
    expect(content.locator(".cel-root", has_text="object")).to_be_visible()
    _type_at_end(page, content, "  - expression: object.spec.repl")
    page.keyboard.press("Control+Space")
    expect(page.locator(".cm-tooltip-autocomplete li").filter(has_text="replicas")).to_be_visible()


def test_a_live_error_shows_inline_at_its_line_in_the_lint_gutter(alice_page):
    page = alice_page
    _new_vap(page)
    content = _open_yaml(
        page, POLICY.replace("object.spec.replicas <= 5", "object.spec.replicas <=")
    )
    error = content.locator(".cm-lintRange-error")
    expect(error).to_have_count(1)
    expect(error).to_contain_text("object.spec.replicas <=")
    expect(page.locator(".cm-yaml-host .cm-lint-marker-error")).to_have_count(1)
    expect(page.locator("#yaml-preview")).to_be_hidden()  # live updates keep the editor in place
    # unreadable YAML: the parser's own line and column
    page.get_by_label("YAML (edits update the form)").fill(POLICY + "  - [unclosed\n")
    expect(page.locator("#yaml-problem")).not_to_be_empty()
    expect(page.locator(".cm-yaml-host .cm-lint-marker-error")).to_have_count(1)
    screenshot(page, "editor-yaml-diagnostic")
    assert not page.console_errors


def test_hovering_a_key_shows_its_documentation_from_the_schema(alice_page):
    page = alice_page
    _new_vap(page)
    content = _open_yaml(page, POLICY)
    content.locator(".cm-line", has_text="failurePolicy").get_by_text("failurePolicy").hover()
    doc = page.locator(".cm-yaml-doc")
    expect(doc).to_contain_text("spec.failurePolicy")
    expect(doc).to_contain_text("how to handle failures")
    assert not page.console_errors  # tooltips and lint marks pass the CSP


def test_switching_between_form_and_yaml_keeps_the_text_comments_and_cursor(alice_page):
    page = alice_page
    _new_vap(page)
    _open_yaml(page, POLICY)
    message = page.locator('details[data-section="validations"] input[name$=".message"]').first
    expect(page.locator("#documents .document")).to_have_count(1)  # the form follows the YAML
    expect(message).to_have_value("at most 5 replicas")
    cursor = POLICY.index("replica-limit.example.com")
    page.evaluate(
        "(pos) => PolicyEditorCM.viewOf(document.getElementById('yaml-edit'))"
        ".dispatch({selection: {anchor: pos}})",
        cursor,
    )
    page.get_by_role("button", name="Back to preview").click()
    message.fill("five at most")
    expect(page.locator("#yaml-preview")).to_contain_text("message: five at most")
    expect(page.locator("#yaml-preview")).to_contain_text("# Replica limit, as kept in Git.")
    _open_yaml(page)
    editor = page.get_by_label("YAML (edits update the form)")
    expect(editor).to_have_value(POLICY.replace("at most 5 replicas", "five at most"))
    head = page.evaluate(
        "() => PolicyEditorCM.viewOf(document.getElementById('yaml-edit')).state.selection.main.head"
    )
    assert head == cursor
    page.get_by_role("button", name="Save").click()
    expect(page.locator("#save-status")).to_contain_text("Saved revision 2")
    assert Draft.objects.get().source == POLICY.replace("at most 5 replicas", "five at most")


def test_without_the_bundle_the_yaml_textarea_stays_the_editor(alice_page):
    page = alice_page
    page.route("**/editor/vendor/codemirror.js", lambda route: route.abort())
    _new_vap(page)
    page.get_by_role("button", name="Edit YAML").click()
    editor = page.get_by_label("YAML (edits update the form)")
    expect(editor).to_be_visible()
    expect(page.locator(".cm-yaml-host")).to_have_count(0)
    editor.fill(editor.input_value().replace("at most 5 replicas", "five is the limit"))
    message = page.locator('details[data-section="validations"] input[name$=".message"]').first
    expect(message).to_have_value("five is the limit")
    assert not [
        e for e in page.console_errors if "codemirror.js" not in e and "ERR_FAILED" not in e
    ]


def test_saving_without_a_change_says_so_and_a_save_clears_the_note_and_updates_menus(alice_page):
    page = alice_page
    _new_vap(page)
    page.keyboard.press("Control+s")
    expect(page.locator("#save-status")).to_contain_text("No changes to save")
    assert Draft.objects.get().revisions.count() == 1
    page.locator('details[data-section="validations"] input[name$=".message"]').first.fill("five")
    page.get_by_label("Revision note").fill("reworded")
    expect(page.locator("#yaml-preview")).to_contain_text("message: five")
    page.keyboard.press("Control+s")
    expect(page.locator("#save-status")).to_contain_text("Saved revision 2")
    expect(page.get_by_label("Revision note")).to_have_value("")
    page.locator("#export-menu summary").click()
    expect(page.locator("#export-menu")).to_contain_text("last saved revision (r2)")
    page.keyboard.press("Control+s")
    expect(page.locator("#save-status")).to_contain_text("No changes to save: revision 2")
    assert Draft.objects.get().revisions.count() == 2
    assert Draft.objects.get().revisions.get(number=2).note == "reworded"
