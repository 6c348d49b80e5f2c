"""The schema library in the browser: import a CRD, then a team draft warns and completes on it."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from policyeditor.editor.services import create_draft
from tests.browser.editor_helpers import fill_cel
from tests.conftest import screenshot
from tests.crd_cases import BY_ID

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _team_draft(team, owner, case):
    from policyeditor.review.models import DraftWorkflow

    draft = create_draft(owner, [case.vap(case.valid)])
    DraftWorkflow.objects.create(draft=draft, team=team)
    return draft


@pytest.mark.parametrize(("case_id", "how"), [("certificate", "paste"), ("gateway", "upload")])
def test_an_imported_crd_gives_a_team_draft_warnings_and_completion(
    alice_page, team, alice, case_id, how
):
    case = BY_ID[case_id]
    page = alice_page
    page.goto(f"/reviews/teams/{team.pk}/")
    page.get_by_role("link", name="Schema library (CRDs)").click()
    expect(page.locator("#library-empty")).to_be_visible()
    if how == "paste":
        page.get_by_label("Paste CRDs").fill(case.path.read_text())
    else:
        page.get_by_label("or upload a file").set_input_files(str(case.path))
    page.get_by_role("button", name="Import").click()
    expect(page.locator("#import-done")).to_contain_text("Imported as version 1")
    expect(page.locator("#library-crds")).to_contain_text(case.kind)
    expect(page.locator("#library-crds")).to_contain_text(case.plural)
    screenshot(page, f"schema-library-{case_id}")

    draft = _team_draft(team, alice, case)
    page.goto(draft.get_absolute_url())
    expression = page.locator('details[data-section="validations"] textarea.cel').first
    fill_cel(expression, case.typo)
    warning = page.locator(".issue-warning").first
    expect(warning).to_contain_text(f"undefined field '{case.typo_field}'")
    expect(warning).to_contain_text(f"{case.api_version}, Kind={case.kind}")

    fill_cel(expression, "")
    page.keyboard.type(f"object.{case.completion_path}.")
    options = page.locator(".cm-tooltip-autocomplete [role=option]")
    expect(options.filter(has_text=case.completion_field)).to_have_count(1)
    screenshot(page, f"schema-library-completion-{case_id}")
    page.keyboard.press("Escape")
    fill_cel(expression, case.valid)
    expect(page.locator(".issue-warning")).to_have_count(0)
    assert page.console_errors == []


def test_a_bad_crd_import_shows_the_api_servers_message_and_stores_nothing(alice_page, team):
    page = alice_page
    page.goto(f"/schemas/teams/{team.pk}/")
    text = BY_ID["certificate"].path.read_text().replace("scope: Namespaced", "scope: Global")
    page.get_by_label("Paste CRDs").fill(text)
    page.get_by_role("button", name="Import").click()
    expect(page.locator("#import-error")).to_contain_text(
        'spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"'
    )
    expect(page.locator("#library-empty")).to_be_visible()
