"""Review where the work is: a reviewer comments by clicking a field in the editor, and the
author sees the comment at that field."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from policyeditor.editor.models import Draft
from policyeditor.editor.services import create_draft, save_draft
from policyeditor.editor.starters import get_starter
from policyeditor.review.editor_hooks import join_team
from policyeditor.review.models import Comment
from policyeditor.teams.models import Team
from tests.browser import editor_helpers  # noqa: F401  (longer expect timeout)
from tests.conftest import screenshot, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def team_draft(alice, bob) -> Draft:
    """The replica-limit template as alice's draft in a team where bob reviews."""
    call_command("create_team", "platform", "--member", "alice:author", "--member", "bob:reviewer")
    draft = create_draft(alice, get_starter("replica-limit").documents(), kind="VAP")
    join_team(draft, Team.objects.get(name="platform"))
    return draft


def test_a_reviewer_comments_on_a_field_and_the_author_sees_it_there(
    browser, live_server, team_draft
):
    context = browser.new_context(base_url=live_server.url, viewport={"width": 1440, "height": 900})
    bob = context.new_page()
    sign_in(bob, "bob")
    bob.goto(f"/drafts/{team_draft.pk}/")
    validations = bob.locator('details[data-section="validations"]')
    field = validations.locator('[data-field$=".expression"]').first
    field.hover()
    field.locator(":scope > .comment-at-field").click()
    box = field.locator(".field-comment-form")
    expect(box.locator("label")).to_have_text("Comment on spec.validations[0].expression")
    box.locator("textarea").fill("Should params.maxReplicas be optional?")
    box.get_by_role("button", name="Post comment").click()
    expect(box).to_have_count(0)
    # Shown once the live check that follows the post comes back (slow on a busy machine).
    expect(field.locator(".field-comment")).to_contain_text(
        "bob: Should params.maxReplicas be optional?", timeout=30_000
    )
    comment = Comment.objects.get()
    assert comment.field_path == "spec.validations[0].expression"
    assert comment.document.startswith("ValidatingAdmissionPolicy ")
    context.close()

    author = browser.new_context(base_url=live_server.url, viewport={"width": 1440, "height": 900})
    alice = author.new_page()
    sign_in(alice, "alice")
    alice.goto(f"/drafts/{team_draft.pk}/")
    at_field = alice.locator('details[data-section="validations"] .field-comment')
    expect(at_field).to_contain_text("bob: Should params.maxReplicas be optional?")
    expect(at_field.get_by_role("link", name="thread")).to_have_attribute(
        "href", f"/reviews/drafts/{team_draft.pk}/r/1/#comment-{comment.pk}"
    )
    screenshot(alice, "editor-comment-at-field")
    author.close()


def test_clicking_a_diff_line_points_the_new_comment_at_its_field(alice_page, team_draft, alice):
    documents = team_draft.documents
    documents[0]["spec"]["validations"][0]["expression"] = "object.spec.replicas <= 4"
    save_draft(team_draft, documents, expected_revision=1, author=alice, note="four")
    page = alice_page
    page.goto(f"/reviews/drafts/{team_draft.pk}/r/2/")
    line = page.locator("table.diff tr.change").filter(has_text="object.spec.replicas <= 4")
    line.click()
    expect(page.get_by_label("Field (optional)")).to_have_value("spec.validations[0].expression")
    expect(page.get_by_label("Document")).to_have_value(
        "ValidatingAdmissionPolicy demo-policy.example.com"
    )
    expect(page.get_by_label("Comment", exact=True)).to_be_focused()
    page.get_by_label("Comment", exact=True).fill("Why four?")
    page.get_by_role("button", name="Comment", exact=True).click()
    comment = Comment.objects.get()
    assert (comment.field_path, comment.revision.number) == ("spec.validations[0].expression", 2)
