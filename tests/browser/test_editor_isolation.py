"""A runaway expression typed into the editor: the time-limit message appears, the page stays usable."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from policyeditor.editor.services import create_draft
from tests.browser.editor_helpers import fill_cel
from tests.builders import replica_limit as policy
from tests.conftest import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Only the deadline stops it: `format` counts 1 here (docs/fidelity.md), `+` or `replace` would not.
RUNAWAY = (
    "['a']" + ".map(x, '%s%s%s%s%s%s%s%s'.format([x, x, x, x, x, x, x, x]))" * 10 + ".size() > 0"
)


def test_a_runaway_validation_shows_the_time_limit_message_and_the_editor_keeps_working(
    alice_page, alice, monkeypatch
):
    from policyeditor.core import engine_gate

    # The runaway fills the worker's memory cap within 1.2 to 3 s, the machine's speed deciding,
    # and then ends as a CEL error instead: a deadline well inside that is what must stop it.
    monkeypatch.setattr(engine_gate, "DEFAULT_TIMEOUT", 0.3)
    page = alice_page
    draft = create_draft(alice, [policy(5)], name="runaway")
    page.goto(f"/drafts/{draft.pk}/")
    page.keyboard.press("Alt+2")
    page.get_by_label("object", exact=True).fill(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\n"
        "spec: {replicas: 7}\n"
    )
    expression = page.locator('details[data-section="validations"] textarea.cel').first
    fill_cel(expression, RUNAWAY)
    result = page.locator("#try-result")
    expect(result).to_contain_text("evaluation exceeded the time limit", timeout=20_000)
    screenshot(page, "editor-runaway-time-limit")
    # Still usable: a normal expression is evaluated again right away.
    fill_cel(expression, "object.spec.replicas <= 5")
    expect(result).to_contain_text("must be at most 5", timeout=20_000)
    expect(page.locator("#status-badge")).to_contain_text("valid for Kubernetes")
