"""The compact form and honest status: folded sections, kind-specific help, quiet new rows, one
fixed toolbar, errors shown once, badge counts that jump, the patch-type switch with undo."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.editor_helpers import fill_cel
from tests.conftest import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _use_template(page, title: str) -> None:
    page.goto("/drafts/new/")
    page.get_by_role("button", name=f"Use template {title}").click()
    page.wait_for_url("**/drafts/*/")


def _bar_height(page) -> float:
    return page.locator("#editor-bar").bounding_box()["height"]


def test_the_toolbar_keeps_one_height_of_about_64_px_while_editing_and_saving(alice_page):
    page = alice_page
    _use_template(page, "Replica limit with params")
    expect(page.locator("#status-badge")).to_have_text("valid for Kubernetes 1.37")
    heights = [_bar_height(page)]
    expression = page.locator('details[data-section="validations"] textarea.cel').first
    fill_cel(expression, "object.spec.replicas <= params.maxReplicas)")
    expect(page.locator("#status-badge")).to_have_text("1 error")
    heights.append(_bar_height(page))
    fill_cel(expression, "object.spec.replicas <= params.maxReplicas + 1")
    expect(page.locator("#status-badge")).to_have_text("valid for Kubernetes 1.37")
    page.get_by_label("Revision note").fill("a note that is long enough to wrap if it could " * 3)
    page.get_by_role("button", name="Save").click()
    expect(page.locator("#save-status")).to_contain_text("Saved revision 2")
    heights.append(_bar_height(page))
    assert all(63 <= h <= 66 for h in heights), heights


def test_the_badge_counts_warnings_says_runtime_failure_and_jumps_to_the_field(alice_page):
    page = alice_page
    _use_template(page, "Replica limit with params")
    validations = page.locator('details[data-section="validations"]')
    expression = validations.locator("textarea.cel").first
    fill_cel(expression, "object.spec.replica <= params.maxReplicas")
    badge = page.locator("#status-badge")
    expect(badge).to_have_text("valid for Kubernetes 1.37, 1 warning")
    warning = validations.locator(".live-errors .field-warning").first
    expect(warning).to_contain_text("This expression will fail at runtime")
    expect(warning).to_contain_text("undefined field 'replica'")
    # Shown once: at its field, not again in the summary above the form.
    expect(page.locator("#live details.problems")).to_be_hidden()

    fill_cel(validations.locator("textarea.cel").nth(1), "'too many' +")
    expect(badge).to_have_text("1 error, 1 warning")
    page.locator("#documents").evaluate("el => el.closest('main').scrollIntoView()")
    validations.locator(":scope > summary").click()  # fold it: the jump unfolds it again
    badge.get_by_role("button", name="1 warning").click()
    expect(validations).to_have_attribute("open", "")
    expect(expression.locator("xpath=ancestor::div[@data-field][1]")).to_have_class(
        "field field-cel jumped"
    )
    expect(warning).to_be_in_viewport()
    badge.get_by_role("button", name="1 error").click()
    expect(validations.locator(".live-errors .field-error").first).to_be_in_viewport()


def test_help_is_specific_to_the_kind_and_links_to_the_api_reference(alice_page):
    page = alice_page
    _use_template(page, "Replica limit with params")
    basics = page.locator(".document").first.locator('details[data-section="basics"]')
    name_field = basics.locator('[data-field$=".metadata.name"]')
    expect(name_field.locator(".help")).to_contain_text("cluster-scoped")
    expect(page.locator("#documents")).not_to_contain_text("unique within a namespace")
    more = name_field.locator("a.help-more")
    expect(more).to_have_attribute(
        "href",
        "https://kubernetes.io/docs/reference/kubernetes-api/admissionregistration/"
        "validating-admission-policy-v1/",
    )
    # Labels and annotations are folded away behind "More options".
    expect(basics.get_by_text("Labels", exact=True)).to_be_hidden()
    basics.locator("details.more-options > summary").click()
    expect(basics.get_by_text("Labels", exact=True)).to_be_visible()


def test_sections_show_what_they_hold_and_new_rows_stay_quiet_until_touched(alice_page):
    page = alice_page
    _use_template(page, "Replica limit with params")
    validations = page.locator(".document").first.locator('details[data-section="validations"]')
    expect(validations.locator(".section-filled")).to_have_text("1 validation")
    validations.get_by_role("button", name="+ Add validation").click()
    expect(validations.locator(".section-filled")).to_have_text("2 validations")
    badge = page.locator("#status-badge")
    expect(badge).to_have_text("1 error")  # counted: the new row lacks its expression
    new_row = validations.locator(".row").nth(1)
    expect(new_row.locator(".field-error")).to_have_count(0)
    expect(new_row.locator("[aria-invalid=true]")).to_have_count(0)
    fill_cel(new_row.locator("textarea.cel").first, "object.spec.replicas >")
    expect(new_row.locator(".field-error").first).to_contain_text("Syntax error")
    screenshot(page, "editor-field-error")


def test_a_wrapped_expression_keeps_the_error_caret_under_its_column(alice_page):
    page = alice_page
    _use_template(page, "Replica limit with params")
    expression = page.locator('details[data-section="validations"] textarea.cel').first
    fill_cel(expression, "object.spec.replicas <= params.maxReplicas && " + "true && " * 20 + ")")
    error = page.locator('details[data-section="validations"] .live-errors .field-error').first
    expect(error).to_contain_text("Syntax error")
    lines = error.inner_text().split("\n")
    source = next(line for line in lines if line.startswith(" | object"))
    caret = next(line for line in lines if line.strip().endswith("^"))
    # One line each (no wrapping), the caret under the closing parenthesis it points at.
    assert source[caret.index("^")] == ")"
    assert error.evaluate("el => getComputedStyle(el).whiteSpace") == "pre"


def test_switching_a_mutation_patch_type_clears_the_other_expression_with_an_undo(alice_page):
    page = alice_page
    _use_template(page, "Inject a sidecar (JSONPatch)")
    row = page.locator('details[data-section="mutations"] .row').first
    json_patch = row.locator('textarea[name$=".jsonPatch.expression"]')
    kept = json_patch.input_value()
    assert kept
    row.get_by_label("Patch type").select_option("ApplyConfiguration")
    expect(json_patch).to_have_value("")
    note = row.locator(".patch-undo")
    expect(note).to_contain_text("the JSONPatch expression was cleared")
    expect(page.locator("#yaml-preview")).not_to_contain_text("jsonPatch")
    note.get_by_role("button", name="Undo").click()
    expect(json_patch).to_have_value(kept)
    expect(row.get_by_label("Patch type")).to_have_value("JSONPatch")
    expect(page.locator("#status-badge")).to_have_text("valid for Kubernetes 1.37")


def test_from_scratch_starts_blank_and_the_gallery_previews_expressions(alice_page):
    page = alice_page
    page.goto("/drafts/new/")
    starter = page.locator(".starter").filter(has_text="Replica limit with params")
    expect(starter.locator(".starter-expression").first).to_contain_text("object.spec.replicas")
    page.get_by_label("Policy name").fill("blank.example.com")
    page.get_by_role("button", name="Create draft").click()
    page.wait_for_url("**/drafts/*/")
    validations = page.locator(".document").first.locator('details[data-section="validations"]')
    expect(validations.locator(".row")).to_have_count(0)
    expect(validations.locator(".section-filled")).to_have_text("empty")
    expect(page.locator("#yaml-preview")).not_to_contain_text("expression")


def test_the_replica_limit_form_with_params_is_compact(alice_page, capsys):
    page = alice_page
    _use_template(page, "Replica limit with params")
    expect(page.locator("#status-badge")).to_have_text("valid for Kubernetes 1.37")
    height = page.locator("#documents").bounding_box()["height"]
    with capsys.disabled():
        print(f"\nreplica-limit form with params: {height:.0f} px tall at 1440x900")
    screenshot(page, "editor-compact-form", full_page=True)
    assert height < 3100  # the issue measured about 3,100 px before the compact form
