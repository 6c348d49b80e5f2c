"""Each real CRD in a real browser: imported into a team's schema library, then used by its drafts.

One journey per CRD of tests/crd_cases.py: the import (pasted, uploaded, or a `kubectl get crd -o
yaml` List dump), type-check warnings and completion on the CR's fields, Try it on a VAP (allowed and
denied), typed params, and a MAP's ApplyConfiguration on a list map and on an atomic list.
"""

from __future__ import annotations

import pytest
import yaml
from playwright.sync_api import Page, expect

from policyeditor.editor.services import create_draft
from tests.browser.editor_helpers import fill_cel
from tests.conftest import screenshot
from tests.crd_cases import CASES, CrdCase

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# How each CRD reaches the library: every way a user has, spread over the six.
HOW = {
    "certificate": "paste",
    "rollout": "list-upload",
    "prometheusrule": "paste",
    "gateway": "upload",
    "composition": "list-paste",
    "constrainttemplate": "paste",
}


def _list_dump(case: CrdCase) -> str:
    """The CRD as `kubectl get crd NAME -o yaml` prints several: a v1 List."""
    crd = yaml.safe_load(case.path.read_text())
    return yaml.safe_dump(
        {"apiVersion": "v1", "kind": "List", "items": [crd], "metadata": {"resourceVersion": ""}},
        sort_keys=False,
    )


def _import(page: Page, team, case: CrdCase, how: str, tmp_path) -> None:
    page.goto(f"/reviews/teams/{team.pk}/")
    page.get_by_role("link", name="Schema library (CRDs)").click()
    expect(page.locator("#library-empty")).to_be_visible()
    text = _list_dump(case) if how.startswith("list") else case.path.read_text()
    if how.endswith("paste"):
        page.get_by_label("Paste CRDs").fill(text)
    else:
        upload = tmp_path / f"{case.id}.yaml"
        upload.write_text(text)
        page.get_by_label("or upload a file").set_input_files(str(upload))
    page.get_by_role("button", name="Import").click()
    expect(page.locator("#import-done")).to_contain_text("Imported as version 1")
    crds = page.locator("#library-crds")
    expect(crds).to_contain_text(case.kind)
    expect(crds).to_contain_text(case.plural)
    expect(crds).to_contain_text("Namespaced" if case.namespaced else "Cluster")


def _team_draft(team, owner, documents: list[dict]):
    from policyeditor.review.models import DraftWorkflow

    draft = create_draft(owner, documents)
    DraftWorkflow.objects.create(draft=draft, team=team)
    return draft


def _expression(page: Page, section: str):
    return page.locator(f'details[data-section="{section}"] textarea.cel').first


def _warns(page: Page, expression, text: str, field: str) -> None:
    """Typing `text` gives one type-check warning on `field`; the API server's words."""
    fill_cel(expression, text)
    warning = page.locator(".issue-warning")
    expect(warning).to_have_count(1)
    expect(warning).to_contain_text(f"undefined field '{field}'")


def _clean(page: Page, expression, text: str) -> None:
    fill_cel(expression, text)
    expect(page.locator(".issue-warning")).to_have_count(0)
    expect(page.locator("#status-badge")).to_contain_text("valid for Kubernetes")


def _try(page: Page, obj: dict, params: dict | None = None) -> None:
    """Open Try it and evaluate `obj` (and an inline param object)."""
    if page.get_by_role("tab", name="Try it").get_attribute("aria-selected") != "true":
        page.get_by_role("tab", name="Try it").click()
    if params is not None:
        page.locator("details.try-more > summary").click()
        page.get_by_label("params", exact=True).fill(yaml.safe_dump(params, sort_keys=False))
    page.get_by_label("object", exact=True).fill(yaml.safe_dump(obj, sort_keys=False))


def _check_vap(page: Page, case: CrdCase) -> None:
    expression = _expression(page, "validations")
    _warns(page, expression, case.typo, case.typo_field)
    expect(page.locator(".issue-warning")).to_contain_text(
        f"{case.api_version}, Kind={case.kind}: ERROR: <input>:1:"
    )
    _clean(page, expression, case.valid)

    # Completion offers the CR's field, with its description (or its type without one).
    fill_cel(expression, "")
    page.keyboard.type(f"object.{case.completion_path}.")
    options = page.locator(".cm-tooltip-autocomplete [role=option]")
    expect(options.filter(has_text=case.completion_field)).to_have_count(1)
    page.keyboard.type(case.completion_field)
    selected = page.locator(".cm-tooltip-autocomplete [role=option][aria-selected=true]")
    expect(selected).to_contain_text(case.completion_field)
    where, text = case.completion_expect
    if where == "detail":
        expect(page.locator(".cm-completionInfo")).to_contain_text(text)
    else:
        expect(selected.locator(".cm-completionDetail")).to_have_text(text)
    screenshot(page, f"crd-completion-{case.id}")
    page.keyboard.press("Escape")

    # params is typed by the CRD's schema (paramKind names the CRD's kind).
    params = _expression(page, "validations").nth(0)
    _warns(page, params, case.param_typo, case.param_typo_field)
    _clean(page, params, case.param_valid)
    second = page.locator('details[data-section="validations"] textarea.cel').nth(1)
    _clean(page, second, case.valid)

    # Try it: the valid CR is allowed, the changed one denied with the API server's message.
    _try(page, case.object(), params=case.object("limits"))
    result = page.locator("#try-result")
    expect(result.locator(".decision-head")).to_contain_text("allowed")
    expect(result).to_contain_text(f"params {'default/' if case.namespaced else ''}limits")
    read_params = result.locator("li.step", has_text=case.param_valid)
    expect(read_params).to_contain_text("value: true")
    _try(page, case.denied_object())
    expect(result.locator(".decision-head")).to_contain_text("denied")
    expect(result.locator("pre.kubectl")).to_contain_text(f"failed expression: {case.valid}")
    screenshot(page, f"crd-try-denied-{case.id}")


def _check_map(page: Page, case: CrdCase) -> None:
    _try(page, case.object())
    result = page.locator("#try-result")
    expect(result.locator(".decision-head")).to_contain_text("allowed")
    # The merged object: the new list-map entry is added, what the object had stays.
    path, value = case.list_map_check
    diff = page.locator("pre.diff")
    expect(diff.locator(".diff-add", has_text=str(value))).not_to_have_count(0)
    expect(diff.locator(".diff-del")).to_have_count(0)
    screenshot(page, f"crd-map-merge-{case.id}")

    # Setting an atomic list: what structured-merge-diff answers.
    fill_cel(_expression(page, "mutations"), case.atomic)
    expect(result.locator(".decision-head")).to_contain_text("denied")
    expect(result.locator("pre.kubectl")).to_contain_text(
        f"may not mutate atomic arrays, maps or structs: {case.atomic_path}"
    )


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_a_custom_resource_is_typed_completed_and_tried_in_the_browser(
    alice_page, team, alice, case, tmp_path
):
    page = alice_page
    _import(page, team, case, HOW[case.id], tmp_path)

    vap = _team_draft(team, alice, [case.vap(case.param_valid, case.valid, params=True)])
    page.goto(vap.get_absolute_url())
    expect(page.locator("#status-badge")).to_contain_text("valid for Kubernetes")
    _check_vap(page, case)

    mutation = _team_draft(team, alice, [case.map(case.list_map)])
    page.goto(mutation.get_absolute_url())
    _check_map(page, case)
    assert page.console_errors == []
