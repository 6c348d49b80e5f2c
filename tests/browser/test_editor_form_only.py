"""The Kubernetes docs' replica-limit example, built with the form alone, then checked."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from policyeditor.editor.models import Draft
from policyeditor.editor.starters import get_starter
from policyeditor.engine.validation.documents import validate_documents
from tests.browser.editor_helpers import fill_cel

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_docs_replica_limit_example_can_be_built_with_the_form_alone(alice_page):
    page = alice_page
    page.goto("/drafts/new/")
    page.get_by_label("Policy name").fill("demo-policy.example.com")
    page.get_by_role("button", name="Create draft").click()
    page.wait_for_url("**/drafts/*/")
    policy = page.locator(".document").nth(0)
    binding = page.locator(".document").nth(1)

    basics = policy.locator('details[data-section="basics"]')
    basics.get_by_label("Param kind: apiVersion").fill("rules.example.com/v1")
    basics.get_by_label("Param kind: kind").fill("ReplicaLimit")
    validations = policy.locator('details[data-section="validations"]')
    cel_fields = validations.locator("textarea.cel")
    fill_cel(cel_fields.nth(0), "object.spec.replicas <= params.maxReplicas")
    validations.get_by_label("Message", exact=True).fill("")
    fill_cel(
        cel_fields.nth(1),
        "'object.spec.replicas must be no greater than ' + string(params.maxReplicas)",
    )
    validations.get_by_label("Reason").select_option("Invalid")

    binding.locator('input[name$=".metadata.name"]').fill("demo-binding-test.example.com")
    binding.get_by_label("Param name", exact=True).fill("replica-limit-test.example.com")
    binding.get_by_label("Param namespace", exact=True).fill("default")
    binding.get_by_label("Parameter not found action").select_option("Deny")
    match = binding.locator('details[data-section="binding-match"]')
    match.locator(":scope > summary").click()
    selector = match.locator("fieldset.group").filter(
        has=page.locator("legend", has_text="Namespace selector")
    )
    selector.get_by_role("button", name="+ Add match labels entry").click()
    selector.get_by_label("Match labels key").fill("environment")
    selector.get_by_label("Match labels value").fill("test")

    page.get_by_role("button", name="+ Add param object").click()
    params = page.locator(".document").nth(2).locator("textarea")
    params.fill(
        "apiVersion: rules.example.com/v1\nkind: ReplicaLimit\nmetadata:\n"
        "  name: replica-limit-test.example.com\n  namespace: default\nmaxReplicas: 3\n"
    )
    expect(page.locator("#status-badge")).to_have_text("valid for Kubernetes 1.37")
    page.get_by_label("Revision note").fill("built from the docs")
    page.get_by_role("button", name="Save").click()
    expect(page.locator("#save-status")).to_contain_text("Saved revision 2")

    documents = Draft.objects.get(name="demo-policy.example.com").documents
    assert documents == get_starter("replica-limit").documents()
    assert validate_documents(documents, version="1.37") == []
