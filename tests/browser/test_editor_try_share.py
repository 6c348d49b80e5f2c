"""Try it you can trust and share: the object's namespace and the operation said, the inputs kept
on the server across reloads, a short read-only link with the inputs, revocable."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from policyeditor.editor.models import TryInput
from tests.browser import editor_helpers  # noqa: F401  (longer expect timeout)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOP = (
    "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\n"
    "spec: {replicas: 7}\n"
)


def _replica_limit_try_tab(page) -> None:
    page.goto("/drafts/new/")
    page.get_by_role("button", name="Use template Replica limit with params").click()
    page.wait_for_url("**/drafts/*/")
    page.get_by_role("tab", name="Try it").click()


def test_try_it_says_which_namespace_object_and_operation_it_used(alice_page):
    page = alice_page
    _replica_limit_try_tab(page)
    result = page.locator("#try-result")
    # The sample object follows the first resource rule (a Deployment) and sits in default,
    # the sample Namespace's name.
    expect(page.get_by_label("object", exact=True)).to_contain_text("kind: Deployment")
    expect(result.locator("#try-namespace-used")).to_have_text(
        "namespaceObject: the Namespace default given below."
    )
    expect(result.locator("#try-operation-used")).to_have_text("CREATE (inferred)")
    page.get_by_label("object", exact=True).fill(SHOP)
    expect(result.locator("#try-namespace-used")).to_contain_text(
        "a bare Namespace shop (only its kubernetes.io/metadata.name label), since the "
        "Namespace given below is default, not shop"
    )
    # The binding selects namespaces labelled environment=test: shop has no such label.
    expect(result.locator(".decision-head")).to_contain_text("allowed")
    page.get_by_text("oldObject, params, namespaceObject").click()
    page.get_by_label("oldObject", exact=True).fill(SHOP)
    expect(result.locator("#try-operation-used")).to_have_text("UPDATE (inferred)")


def test_try_inputs_survive_a_reload_and_a_share_link_replays_them_until_revoked(alice_page, alice):
    page = alice_page
    _replica_limit_try_tab(page)
    page.get_by_label("object", exact=True).fill(SHOP.replace("shop", "default"))
    # The sample is denied too: wait for the result about the pasted Deployment "web".
    expect(page.locator("#try-result pre.kubectl")).to_contain_text('"web" is forbidden')
    assert TryInput.objects.filter(user=alice).count() == 1
    page.reload()
    page.get_by_role("tab", name="Try it").click()
    expect(page.get_by_label("object", exact=True)).to_have_value(SHOP.replace("shop", "default"))
    expect(page.locator("#try-result .decision-head")).to_contain_text("denied")

    page.get_by_role("button", name="Share…").click()
    link = page.locator("#try-share-url")
    expect(link).to_be_visible()
    url = link.get_attribute("href")
    assert url.startswith("/reviews/s/") and len(url.rstrip("/").rsplit("/", 1)[1]) == 16
    shared = page.context.new_page()
    shared.goto(url)
    section = shared.get_by_test_id("shared-try")
    expect(section.get_by_test_id("shared-try-object")).to_contain_text("replicas: 7")
    expect(section.locator(".decision-head")).to_contain_text("denied")
    expect(section.locator("pre.kubectl")).to_contain_text("must be no greater than 3")

    page.get_by_test_id("try-share-link").get_by_role("button", name="Revoke").click()
    expect(page.get_by_test_id("try-share-revoked")).to_be_visible()
    response = shared.goto(url)
    assert response is not None and response.status == 404


def test_the_sample_object_follows_the_first_resource_rule_until_edited(alice_page):
    page = alice_page
    _replica_limit_try_tab(page)
    sample = page.get_by_label("object", exact=True)
    expect(sample).to_contain_text("kind: Deployment")
    match = page.locator(".document").first.locator('details[data-section="match"]')
    match.locator(":scope > summary").click()
    rule = match.locator(".row").first
    rule.get_by_label("API groups").fill('""')
    rule.get_by_label("Resources").fill("pods")
    expect(sample).to_have_value(re.compile(r"^apiVersion: v1\nkind: Pod\n"))
    sample.fill(SHOP)
    rule.get_by_label("Resources").fill("services")
    expect(page.locator("#yaml-preview")).to_contain_text("- services")
    expect(sample).to_have_value(SHOP)
