"""Browser tests of target versions, reordering rows and concurrent saves."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from policyeditor.editor.models import Draft
from tests.browser.editor_helpers import fill_cel
from tests.conftest import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _use_template(page, title: str) -> None:
    page.goto("/drafts/new/")
    page.get_by_role("button", name=f"Use template {title}").click()
    page.wait_for_url("**/drafts/*/")


def test_choosing_an_older_version_flags_the_api_version_it_lacks(alice_page):
    page = alice_page
    _use_template(page, "Inject a sidecar (JSONPatch)")
    expect(page.locator("#status-badge")).to_have_text("valid for Kubernetes 1.37")
    page.get_by_label("Kubernetes", exact=True).select_option("1.33")
    expect(page.locator("#status-badge")).to_have_text("2 errors")
    expect(page.locator("#live")).to_contain_text("requires Kubernetes 1.36")
    page.get_by_label("Kubernetes", exact=True).select_option("1.36")
    expect(page.locator("#status-badge")).to_have_text("valid for Kubernetes 1.36")


def test_rows_move_up_and_down_and_the_yaml_follows(alice_page):
    page = alice_page
    _use_template(page, "Deny privileged containers")
    section = page.locator('details[data-section="validations"]')
    section.get_by_role("button", name="+ Add validation").click()
    fill_cel(section.locator("textarea.cel").nth(2), "object.metadata.name != 'x'")
    preview = page.locator("#yaml-preview")
    expect(preview).to_contain_text("object.metadata.name != 'x'")
    section.locator(".row").nth(1).get_by_role("button", name="Move up").click()
    expect(section.locator(".row").first.locator(".row-number")).to_have_text("#1")
    expect(section.locator("textarea.cel").first).to_have_value("object.metadata.name != 'x'")
    page.wait_for_function(
        "() => { const t = document.getElementById('yaml-preview').textContent;"
        " return t.indexOf(\"object.metadata.name != 'x'\") < t.indexOf('allContainers.all'); }"
    )
    section.locator(".row").first.get_by_role("button", name="Remove").click()
    expect(section.locator(".row")).to_have_count(1)
    expect(preview).not_to_contain_text("object.metadata.name != 'x'")


def test_a_second_tab_saving_a_stale_revision_is_told_and_overwrites_nothing(
    alice_page, browser, live_server
):
    page = alice_page
    _use_template(page, "Deny latest tags")
    url = page.url
    other = browser.new_context(base_url=live_server.url).new_page()
    sign_in(other, "alice")
    other.goto(url)
    expect(other.locator("#status-badge")).to_have_text("valid for Kubernetes 1.37")

    page.locator('details[data-section="validations"] input[name$=".message"]').fill("first tab")
    page.get_by_role("button", name="Save").click()
    expect(page.locator("#save-status")).to_contain_text("Saved revision 2")

    other.locator('details[data-section="validations"] input[name$=".message"]').fill("second tab")
    other.get_by_role("button", name="Save").click()
    expect(other.locator("#save-status [role=alert]")).to_contain_text(
        "saved as revision 2 while you were editing revision 1"
    )
    draft = Draft.objects.get(name="deny-latest-tag.example.com")
    assert draft.revision == 2
    assert draft.documents[0]["spec"]["validations"][0]["message"] == "first tab"
    other.context.close()
