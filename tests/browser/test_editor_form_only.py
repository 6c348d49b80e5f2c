"""The reference policy authored with the form alone, from a blank draft; user actions counted.

The reference policy: a VAP limiting Deployment replicas with a ConfigMap param, exempting
namespaces labelled env=dev, bound with Deny and Audit, its message built by a messageExpression.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Locator, Page, expect

from policyeditor.editor.models import Draft
from policyeditor.engine.validation.documents import validate_documents
from tests.browser.editor_helpers import fill_cel, tick
from tests.builders import rules, vap, vap_binding

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NAME = "replica-limit.example.com"
DEV_EXEMPT = {"matchExpressions": [{"key": "env", "operator": "NotIn", "values": ["dev"]}]}
REFERENCE = [
    vap(
        NAME,
        paramKind={"apiVersion": "v1", "kind": "ConfigMap"},
        matchConstraints={**rules(), "namespaceSelector": DEV_EXEMPT},
        validations=[
            {
                "expression": "object.spec.replicas <= int(params.data.maxReplicas)",
                "messageExpression": "'replicas must be at most ' + params.data.maxReplicas",
            }
        ],
    ),
    vap_binding(
        f"{NAME}-binding",
        NAME,
        ("Deny", "Audit"),
        paramRef={
            "name": "replica-limit",
            "namespace": "default",
            "parameterNotFoundAction": "Deny",
        },
    ),
    {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "replica-limit", "namespace": "default"},
        "data": {"maxReplicas": "3"},
    },
]


class Actions:
    """Drives the page as a user would, counting each click, pick, tick and typed field."""

    def __init__(self) -> None:
        self.count = 0

    def click(self, target: Locator) -> None:
        self.count += 1
        target.click()

    def fill(self, target: Locator, text: str) -> None:
        self.count += 1
        target.fill(text)

    def cel(self, textarea: Locator, text: str) -> None:
        self.count += 1
        fill_cel(textarea, text)

    def pick(self, target: Locator, value: str) -> None:
        self.count += 1
        target.select_option(value)

    def tick(self, target: Locator) -> None:
        self.count += 1
        tick(target)


def author_reference_policy_with_the_form(page: Page) -> int:
    """Author the reference policy from "New draft" to "Saved"; the number of user actions."""
    act = Actions()
    page.goto("/drafts/new/")
    act.fill(page.get_by_label("Policy name"), NAME)
    act.click(page.get_by_role("button", name="Create draft"))
    page.wait_for_url("**/drafts/*/")
    policy, binding = page.locator(".document").nth(0), page.locator(".document").nth(1)

    basics = policy.locator('details[data-section="basics"]')
    act.fill(basics.get_by_label("Param kind: apiVersion"), "v1")
    act.fill(basics.get_by_label("Param kind: kind"), "ConfigMap")

    match = policy.locator('details[data-section="match"]')
    act.click(match.locator(":scope > summary"))
    act.click(match.get_by_role("button", name="+ Add rule"))
    rule = match.locator(".row").first
    # Picking a built-in resource fills its group and version.
    act.fill(rule.get_by_label("Resources"), "deployments")
    rule.get_by_label("Resources").dispatch_event("change")
    act.tick(rule.get_by_label("CREATE"))
    act.tick(rule.get_by_label("UPDATE"))
    selector = match.locator("fieldset.group").filter(
        has=page.locator("legend", has_text="Namespace selector")
    )
    act.click(selector.get_by_role("button", name="+ Add expression"))
    act.fill(selector.get_by_label("Key", exact=True), "env")
    act.pick(selector.get_by_label("Operator"), "NotIn")
    act.fill(selector.get_by_label("Values", exact=True), "dev")

    validations = policy.locator('details[data-section="validations"]')
    act.click(validations.get_by_role("button", name="+ Add validation"))
    cel = validations.locator("textarea.cel")
    expect(cel).to_have_count(2)
    act.cel(cel.nth(0), REFERENCE[0]["spec"]["validations"][0]["expression"])
    act.cel(cel.nth(1), REFERENCE[0]["spec"]["validations"][0]["messageExpression"])

    act.tick(binding.get_by_label("Audit", exact=True))
    act.fill(binding.get_by_label("Param name", exact=True), "replica-limit")
    act.fill(binding.get_by_label("Param namespace", exact=True), "default")
    act.pick(binding.get_by_label("Parameter not found action"), "Deny")

    act.click(page.get_by_role("button", name="+ Add param object"))
    act.fill(
        page.locator(".document").nth(2).locator("textarea"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: replica-limit\n"
        "  namespace: default\ndata:\n  maxReplicas: '3'\n",
    )
    expect(page.locator("#status-badge")).to_have_text("valid for Kubernetes 1.37")
    act.click(page.get_by_role("button", name="Save"))
    expect(page.locator("#save-status")).to_contain_text("Saved revision 2")
    return act.count


def test_the_reference_policy_can_be_authored_with_the_form_alone(alice_page, capsys):
    actions = author_reference_policy_with_the_form(alice_page)
    documents = Draft.objects.get(name=NAME).documents
    assert documents == REFERENCE
    assert validate_documents(documents, version="1.37") == []
    with capsys.disabled():
        print(f"\nreference policy with the form alone: {actions} user actions")
    # The count is reported in docs/editor.md; it only grows when the form gets harder to use.
    assert actions <= 25
