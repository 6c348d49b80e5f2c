"""CEL pitfalls in a real browser: a lint warning shows at its field and never blocks."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.editor_helpers import fill_cel, open_minimal_draft
from tests.conftest import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_lint_warning_shows_at_its_field_and_the_badge_counts_it(alice_page):
    page = alice_page
    open_minimal_draft(page, "labels.example.com")
    expression = page.locator('details[data-section="validations"] textarea.cel').first
    fill_cel(expression, "has(object.metadata.labels.team)")
    warning = page.locator('details[data-section="validations"] .live-errors .field-warning').first
    expect(warning).to_contain_text("PE101")
    expect(warning).to_contain_text("'team' in object.metadata.labels")
    expect(page.locator("#status-badge")).to_have_text("valid for Kubernetes 1.37, 1 warning")
    screenshot(page, "editor-lint-warning")
    fill_cel(expression, "has(object.metadata.labels) && 'team' in object.metadata.labels")
    expect(warning).to_have_count(0)
    expect(page.locator("#status-badge")).to_have_text("valid for Kubernetes 1.37")
    assert page.console_errors == []
