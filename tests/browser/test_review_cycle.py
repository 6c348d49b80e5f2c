"""The whole review cycle in two browser sessions: alice authors, bob reviews."""

from __future__ import annotations

import re

import pytest
from django.core.management import call_command

from policyeditor.editor.models import Draft, Status
from policyeditor.engine.manifests.loading import dump_documents
from policyeditor.review import workflow
from tests.builders import replica_limit
from tests.conftest import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

POLICY_YAML = dump_documents([replica_limit(5)])

CASE_YAML = """\
name: four-replicas-allowed
object:
  apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web, namespace: default}
  spec: {replicas: 4}
expect: {result: allow}
"""


@pytest.fixture
def bob_page(browser, live_server, bob):
    """A second, independent browser session signed in as bob."""
    context = browser.new_context(base_url=live_server.url, viewport={"width": 1440, "height": 900})
    context.set_default_timeout(10_000)
    tab = context.new_page()
    tab.console_errors = []
    tab.on("console", lambda msg: msg.type == "error" and tab.console_errors.append(msg.text))
    sign_in(tab, "bob")
    yield tab
    context.close()


def _review_page(tab, draft: Draft) -> None:
    tab.get_by_role("link", name=re.compile(r"^Reviews")).first.click()
    tab.get_by_role("link", name=draft.name).first.click()
    tab.wait_for_load_state("networkidle")


def test_alice_and_bob_run_the_whole_review_cycle(alice_page, bob_page, alice, bob, tmp_path):
    call_command("create_team", "platform", "--member", "alice:author", "--member", "bob:reviewer")
    alice_tab = alice_page

    # alice authors a draft by pasting YAML.
    alice_tab.goto("/drafts/import/")
    alice_tab.get_by_label("Paste YAML").fill(POLICY_YAML)
    alice_tab.get_by_role("button", name="Import").click()
    alice_tab.wait_for_load_state("networkidle")
    draft = Draft.objects.get(owner=alice)

    # She moves it into her team, adds a test case and requests review.
    alice_tab.get_by_role("link", name=re.compile(r"^Reviews")).first.click()
    alice_tab.get_by_role("region", name="My drafts without a team", exact=True).get_by_role(
        "link", name=draft.name
    ).click()
    alice_tab.get_by_role("button", name="Move to team").click()
    assert alice_tab.get_by_text("The draft now belongs to platform.").is_visible()
    alice_tab.get_by_role("link", name="Test cases", exact=True).click()
    alice_tab.get_by_label("Case (YAML)").fill(CASE_YAML)
    alice_tab.get_by_role("button", name="Save case").click()
    assert alice_tab.get_by_text("1 passed, 0 failed").is_visible()
    alice_tab.get_by_role("link", name="Back to review").click()
    alice_tab.get_by_label("Note").fill("first version")
    alice_tab.get_by_role("button", name="Request review", exact=True).click()
    assert alice_tab.get_by_test_id("draft-status").inner_text() == "In review"

    # bob sees the badge, comments on a field and requests changes.
    bob_page.reload()
    assert bob_page.locator(".site-nav .badge-count").inner_text() == "1"
    _review_page(bob_page, draft)
    bob_page.get_by_label("Document").select_option(
        "ValidatingAdmissionPolicy replica-limit.example.com"
    )
    bob_page.get_by_label("Field (optional)").fill("spec.validations[0].expression")
    bob_page.get_by_label("Comment", exact=True).fill("Make it **3**, @alice <b>please</b>")
    bob_page.get_by_role("button", name="Comment", exact=True).click()
    thread = bob_page.locator("article.thread").first
    assert "spec.validations[0].expression" in thread.inner_text()
    assert thread.locator("strong").inner_text() == "3"
    assert thread.locator(".mention").inner_text() == "@alice"
    assert "<b>please</b>" in thread.inner_text()  # shown as text, not markup
    bob_page.get_by_label("Review comment").fill("Please lower the limit to 3.")
    bob_page.get_by_role("button", name="Request changes").click()
    assert bob_page.get_by_test_id("draft-status").inner_text() == "Changes requested"

    # alice edits the draft in the editor and requests review again.
    alice_tab.goto(f"/drafts/{draft.pk}/")
    alice_tab.wait_for_load_state("networkidle")
    alice_tab.get_by_role("button", name="Edit YAML").click()
    editor = alice_tab.locator("#yaml-edit")
    editor.fill(editor.input_value().replace("<= 5", "<= 3").replace("at most 5", "at most 3"))
    alice_tab.wait_for_load_state("networkidle")
    alice_tab.wait_for_timeout(900)  # the form follows the YAML after a short debounce
    alice_tab.wait_for_load_state("networkidle")
    alice_tab.locator("#save-button").click()
    alice_tab.get_by_text("Saved revision 2.").wait_for()
    alice_tab.goto(f"/reviews/drafts/{draft.pk}/")
    alice_tab.get_by_role("button", name="Request review", exact=True).click()
    assert alice_tab.get_by_test_id("draft-status").inner_text() == "In review"

    # bob sees the diff and the changed test outcome, and approves.
    _review_page(bob_page, draft)
    split = bob_page.get_by_test_id("split-diff")
    assert split.locator("tr.change td.old mark").first.inner_text() == "5"
    assert split.locator("tr.change td.new mark").first.inner_text() == "3"
    assert bob_page.get_by_test_id("changed-outcomes").inner_text() == (
        "This change now denies 1 object that was allowed."
    )
    bob_page.get_by_role("button", name="Approve r2").click()
    assert bob_page.get_by_test_id("draft-status").inner_text() == "Approved"
    reviewed_yaml = bob_page.get_by_test_id("revision-yaml").inner_text()

    # alice exports the approved YAML: byte for byte what bob reviewed.
    alice_tab.reload()
    with alice_tab.expect_download() as download_info:
        alice_tab.get_by_test_id("export-approved").click()
    path = tmp_path / "approved.yaml"
    download_info.value.save_as(path)
    exported = path.read_bytes()
    draft.refresh_from_db()
    assert draft.status == Status.APPROVED
    approved = workflow.approved_revision(draft)
    assert approved.number == 2
    assert exported == dump_documents(approved.documents).encode("utf-8")
    assert exported.decode("utf-8").strip() == reviewed_yaml.strip()
    assert "object.spec.replicas <= 3" in exported.decode("utf-8")
    assert alice_tab.console_errors == [] and bob_page.console_errors == []
