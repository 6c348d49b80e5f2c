"""Tests for comments: threads, field anchors, resolve, mentions and safe rendering."""

from __future__ import annotations

import pytest

from policyeditor.review import comments, workflow
from policyeditor.review.markdown import mentioned_usernames, render
from policyeditor.review.models import Action
from policyeditor.review.workflow import NotAllowed, WorkflowError

pytestmark = pytest.mark.django_db


def _rev(draft):
    return workflow.latest_revision(draft)


def test_a_viewer_comments_on_a_field_and_the_anchor_resolves(draft, carol):
    comment = comments.add_comment(
        carol, draft, _rev(draft), "why 5?", field_path="spec.validations[0].expression"
    )
    (thread,) = comments.threads_for(draft, _rev(draft))
    assert thread.root == comment
    assert thread.anchor_found
    assert thread.anchor_value == "object.spec.replicas <= 5"


def test_replies_join_the_root_thread_and_inherit_its_anchor(draft, alice, bob):
    root = comments.add_comment(bob, draft, _rev(draft), "hmm", field_path="spec.failurePolicy")
    reply = comments.add_comment(alice, draft, _rev(draft), "ok", parent=root)
    nested = comments.add_comment(bob, draft, _rev(draft), "thanks", parent=reply)
    assert nested.parent == root
    assert reply.field_path == "spec.failurePolicy"
    (thread,) = comments.threads_for(draft)
    assert thread.replies == [reply, nested]


@pytest.mark.parametrize(
    ("path", "document", "message"),
    [
        ("spec..x", "", "not a field path"),
        ("<b>", "", "not a field path"),
        ("spec", "ConfigMap nope", "no document"),
    ],
)
def test_bad_anchors_are_refused_with_a_reason(draft, bob, path, document, message):
    with pytest.raises(WorkflowError, match=message):
        comments.add_comment(bob, draft, _rev(draft), "x", field_path=path, document=document)


def test_an_anchor_missing_in_the_revision_is_flagged_not_fatal(draft, bob):
    comments.add_comment(bob, draft, _rev(draft), "x", field_path="spec.validations[7]")
    (thread,) = comments.threads_for(draft)
    assert not thread.anchor_found


def test_empty_comments_and_outsiders_are_refused(draft, bob, eve, other_team):
    with pytest.raises(WorkflowError, match="needs some text"):
        comments.add_comment(bob, draft, _rev(draft), "   ")
    with pytest.raises(NotAllowed):
        comments.add_comment(eve, draft, _rev(draft), "hello")


def test_resolve_and_unresolve_by_reviewer_but_not_by_an_unrelated_viewer(draft, alice, bob, carol):
    root = comments.add_comment(alice, draft, _rev(draft), "question")
    with pytest.raises(NotAllowed):
        comments.set_resolved(carol, root, True)
    comments.set_resolved(bob, root, True)
    root.refresh_from_db()
    assert root.resolved and root.resolved_by == bob
    comments.set_resolved(alice, root, False)
    root.refresh_from_db()
    assert not root.resolved and root.resolved_by is None


def test_mentions_notify_team_members_only(draft, bob, carol, eve, other_team):
    comments.add_comment(bob, draft, _rev(draft), "@carol and @eve, look")
    assert carol.review_notifications.filter(event__action=Action.COMMENTED).exists()
    assert not eve.review_notifications.exists()


def test_mentioned_usernames_skips_email_addresses_and_repeats():
    assert mentioned_usernames("@bob hi a@carol.dev (@dave) @bob.") == ["bob", "dave"]


def test_rendering_escapes_html_and_drops_javascript_links():
    html = render(
        "**bold** <script>alert(1)</script> <img src=x onerror=alert(1)> "
        "[x](javascript:alert(1)) [ok](https://example.com) ![p](https://t.example/p.png)"
    )
    assert "<strong>bold</strong>" in html
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "<img" not in html
    assert 'href="javascript:' not in html
    assert '<a href="https://example.com" rel="nofollow noopener noreferrer">ok</a>' in html


def test_rendering_highlights_only_known_members():
    html = render("hi @bob and @mallory", members=["bob"])
    assert '<span class="mention">@bob</span>' in html
    assert "@mallory" in html and 'mention">@mallory' not in html


def test_code_spans_keep_markup_as_text():
    assert "<code>&lt;b&gt;x&lt;/b&gt;</code>" in render("`<b>x</b>`")


def test_field_paths_suggest_the_fields_of_the_revision_in_document_order():
    from tests.builders import replica_limit as policy

    paths = comments.field_paths([policy(5)])
    assert paths[:3] == ["apiVersion", "kind", "metadata"]
    assert "spec.validations[0].expression" in paths
    assert "spec.matchConstraints.resourceRules[0].apiGroups[0]" not in paths  # beyond depth 5
    assert len(comments.field_paths([policy(5)], limit=4)) == 4
