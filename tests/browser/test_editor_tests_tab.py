"""Saving what was tried as a test case, and the Tests tab running it, in a real browser."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from policyeditor.review.models import SavedTestCase
from tests.browser import editor_helpers  # noqa: F401  (longer expect timeout)
from tests.browser.editor_helpers import fill_cel, save_denied_seven_case
from tests.conftest import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_case_saved_from_try_it_through_a_binding_with_params_passes_then_fails_on_an_edit(
    alice_page,
):
    page = alice_page
    save_denied_seven_case(page)
    tab = page.get_by_role("tab", name="Tests 1/1")
    expect(tab).to_be_visible()
    case = SavedTestCase.objects.get(name="denies seven").case
    assert case["binding"] == "demo-binding-test.example.com"
    page.keyboard.press("Alt+3")
    passing = page.locator('.tests-list [data-case="denies seven"]')
    expect(passing).to_have_attribute("data-passed", "true")
    screenshot(page, "editor-tests-tab")
    # Raising the limit in the form (unsaved) makes the saved expectation fail at once.
    validations = page.locator('details[data-section="validations"]')
    fill_cel(validations.locator("textarea.cel").first, "object.spec.replicas <= 10")
    expect(passing).to_have_attribute("data-passed", "false")
    expect(page.get_by_role("tab", name="Tests 0/1")).to_be_visible()
    expect(passing.locator("pre").first).to_contain_text("expected result deny, got allow")
    assert page.console_errors == []


def test_the_tests_tab_shows_coverage_and_warns_of_a_case_that_passed_vacuously(alice_page, alice):
    from policyeditor.editor.services import create_draft
    from policyeditor.review import testcases
    from tests.builders import deployment, replica_limit

    policy = replica_limit(5, variables=[{"name": "unused", "expression": "'never read'"}])
    draft = create_draft(alice, [policy], name="coverage")
    six = {"name": "six denied", "object": deployment(replicas=6), "expect": {"result": "deny"}}
    configmap = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}
    idle = {"name": "configmap allowed", "object": configmap, "expect": {"allowed": True}}
    testcases.save_case(alice, draft, six)
    testcases.save_case(alice, draft, idle)
    page = alice_page
    page.goto(draft.get_absolute_url())
    page.keyboard.press("Alt+3")
    vacuous = page.locator('.tests-list [data-case="configmap allowed"]')
    expect(vacuous).to_have_attribute("data-vacuous", "true")
    expect(vacuous).to_contain_text("Passed vacuously: allowed: no policy matched the request")
    expect(page.locator("#tests-vacuous-count")).to_have_text("1 vacuous")
    coverage = page.locator("#tests-coverage")
    expect(coverage.get_by_role("heading", name="Coverage")).to_be_visible()
    table = coverage.locator('[data-policy="replica-limit.example.com"]')
    expect(table.locator(".coverage-percent")).to_have_text("50.0%")
    expect(table.locator('tr[data-item="validations[0]"] td').first).to_have_text("false 1")
    expect(table.locator('tr[data-item="variables[0]"] td').first).to_have_text("not evaluated")
    expect(table.locator(".coverage-not-exercised")).to_contain_text("variables[0]")
    screenshot(page, "editor-tests-tab-coverage")
    assert page.console_errors == []
