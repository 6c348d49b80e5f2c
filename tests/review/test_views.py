"""Tests for the review pages through the Django test client."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils.html import escape

from policyeditor.editor.models import Status
from policyeditor.engine.manifests.loading import load_documents
from policyeditor.review import comments, workflow
from policyeditor.review.models import Comment, ShareLink
from tests.builders import replica_limit as policy
from tests.review.conftest import approved_then_edited, edit

pytestmark = pytest.mark.django_db


def _page(draft, number, **query):
    url = reverse("review:revision", args=[draft.pk, number])
    if query:
        url += "?" + "&".join(f"{k}={v}" for k, v in query.items())
    return url


def test_the_review_page_shows_the_diff_against_the_approved_revision_by_default(
    draft, alice, bob, as_user
):
    approved_then_edited(draft, alice, bob, 3)
    edit(draft, alice, 2)
    html = as_user(bob).get(_page(draft, 3)).content.decode()
    assert "Changes since r1 (approved)" in html
    assert "<mark>2</mark>" in html  # the intraline change 5 -> 2 on the right side
    unified = as_user(bob).get(_page(draft, 3, view="unified", against=2)).content.decode()
    assert "Changes since r2" in unified
    assert '<span class="del">-  - expression: object.spec.replicas &lt;= 3</span>' in unified


def test_the_review_page_redirects_to_the_latest_revision(draft, alice, as_user):
    edit(draft, alice, 4)
    response = as_user(alice).get(reverse("review:draft", args=[draft.pk]))
    assert response.status_code == 302
    assert response.url == _page(draft, 2)


def test_other_teams_get_404_on_every_review_url(draft, eve, other_team, as_user, alice, bob):
    client = as_user(eve)
    link = workflow.create_share_link(alice, draft, workflow.latest_revision(draft))
    root = comments.add_comment(bob, draft, workflow.latest_revision(draft), "hi")
    for url in [
        reverse("review:draft", args=[draft.pk]),
        _page(draft, 1),
        reverse("review:history", args=[draft.pk]),
        reverse("review:revision_download", args=[draft.pk, 1]),
        reverse("review:cases", args=[draft.pk]),
        reverse("review:bundle_export", args=[draft.pk, 1]),
        reverse("review:shared", args=[link.token]),
    ]:
        assert client.get(url).status_code == 404, url
    for url in [
        reverse("review:request_review", args=[draft.pk]),
        reverse("review:decide", args=[draft.pk, 1]),
        reverse("review:comment", args=[draft.pk, 1]),
        reverse("review:resolve", args=[root.pk]),
    ]:
        assert client.post(url, {"decision": "approve", "body": "x"}).status_code == 404, url


def test_a_viewer_posting_an_approval_gets_403_and_nothing_changes(draft, alice, carol, as_user):
    workflow.request_review(alice, draft)
    response = as_user(carol).post(
        reverse("review:decide", args=[draft.pk, 1]), {"decision": "approve"}
    )
    assert response.status_code == 403
    assert "Only reviewers" in response.content.decode()
    draft.refresh_from_db()
    assert draft.status == Status.IN_REVIEW


def test_the_author_sees_a_disabled_approve_button_on_their_own_revision(
    draft, alice, dave, as_user
):
    workflow.request_review(alice, draft)
    edit(draft, dave, 4)
    html = as_user(dave).get(_page(draft, 2)).content.decode()
    assert "disabled" in html and "someone else has to approve it" in html


def test_request_changes_then_approve_through_the_pages(draft, alice, bob, as_user):
    client = as_user(alice)
    assert client.post(reverse("review:request_review", args=[draft.pk])).status_code == 302
    client = as_user(bob)
    response = client.post(
        reverse("review:decide", args=[draft.pk, 1]), {"decision": "request_changes", "body": ""}
    )
    assert response.status_code == 302
    draft.refresh_from_db()
    assert draft.status == Status.IN_REVIEW  # refused: no reason given
    assert "Say what should change" in client.get(response.url).content.decode()
    client.post(
        reverse("review:decide", args=[draft.pk, 1]),
        {"decision": "request_changes", "body": "use 3"},
    )
    draft.refresh_from_db()
    assert draft.status == Status.CHANGES_REQUESTED
    edit(draft, alice, 3)
    as_user(alice).post(reverse("review:request_review", args=[draft.pk]))
    as_user(bob).post(reverse("review:decide", args=[draft.pk, 2]), {"decision": "approve"})
    draft.refresh_from_db()
    assert draft.status == Status.APPROVED


def test_a_field_comment_is_rendered_escaped_with_its_anchor_value(draft, bob, alice, as_user):
    client = as_user(bob)
    client.post(
        reverse("review:comment", args=[draft.pk, 1]),
        {
            "body": "**why** <script>alert(1)</script> @alice",
            "field_path": "spec.validations[0].expression",
            "document": "ValidatingAdmissionPolicy replica-limit.example.com",
        },
    )
    comment = Comment.objects.get()
    assert comment.field_path == "spec.validations[0].expression"
    html = client.get(_page(draft, 1)).content.decode()
    assert "<strong>why</strong>" in html
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert '<span class="mention">@alice</span>' in html
    assert "object.spec.replicas &lt;= 5" in html


def test_resolving_a_thread_through_the_page(draft, bob, alice, as_user):
    root = comments.add_comment(bob, draft, workflow.latest_revision(draft), "fix?")
    as_user(alice).post(reverse("review:resolve", args=[root.pk]), {"resolved": "1"})
    root.refresh_from_db()
    assert root.resolved


def test_the_exported_approved_yaml_is_byte_for_byte_what_the_review_page_showed(
    draft, alice, bob, as_user
):
    weird = policy(5)
    weird["spec"]["validations"][0]["message"] = 'multi\nline é "quoted" <b>'
    edit(draft, alice, 5)
    draft.refresh_from_db()
    from policyeditor.editor.services import save_draft

    save_draft(draft, [weird], expected_revision=draft.revision, author=alice)
    workflow.request_review(alice, draft)
    client = as_user(bob)
    client.post(reverse("review:decide", args=[draft.pk, 3]), {"decision": "approve"})
    edit(draft, alice, 8)
    response = as_user(alice).get(reverse("review:approved_download", args=[draft.pk]))
    assert response.status_code == 200
    approved = draft.revisions.get(number=3)
    assert load_documents(approved.source) == [weird]
    assert response.content == approved.source.encode("utf-8")
    assert "approved-r3" in response["Content-Disposition"]
    html = client.get(_page(draft, 3)).content.decode()
    assert "approved revision" in html
    assert escape(approved.source) in html  # the page showed exactly the text exported


def test_approved_download_before_approval_is_404(draft, alice, as_user):
    assert (
        as_user(alice).get(reverse("review:approved_download", args=[draft.pk])).status_code == 404
    )


def test_a_share_link_opens_for_team_members_until_revoked(draft, alice, carol, as_user):
    as_user(alice).post(reverse("review:share", args=[draft.pk, 1]))
    link = ShareLink.objects.get()
    client = as_user(carol)
    response = client.get(link.get_absolute_url())
    assert response.status_code == 200
    assert "replica-limit.example.com" in response.content.decode()
    as_user(alice).post(reverse("review:revoke_share", args=[link.token]))
    assert as_user(carol).get(link.get_absolute_url()).status_code == 404


def test_the_nav_badge_counts_reviews_waiting_and_the_inbox_lists_them(draft, alice, bob, as_user):
    workflow.request_review(alice, draft)
    html = as_user(bob).get(reverse("review:inbox")).content.decode()
    assert 'class="badge-count"' in html
    assert "Reviews waiting for me (1)" in html
    assert reverse("review:draft", args=[draft.pk]) in html
    workflow.request_changes(bob, draft, revision_number=1, body="x")
    alice_html = as_user(alice).get(reverse("review:inbox")).content.decode()
    assert "bob requested changes r1" in alice_html
    as_user(alice).post(reverse("review:mark_read"))
    assert "(1 unread)" not in as_user(alice).get(reverse("review:inbox")).content.decode()


def test_the_activity_log_filters_by_action_and_hides_other_teams(
    draft, alice, eve, other_team, as_user
):
    workflow.request_review(alice, draft)
    html = (
        as_user(alice).get(reverse("review:activity") + "?action=review_requested").content.decode()
    )
    table = html.split('data-testid="activity"')[1]
    assert "requested review" in table and "created the draft" not in table
    eve_html = as_user(eve).get(reverse("review:activity")).content.decode()
    assert "replica-limit" not in eve_html


def test_moving_a_personal_draft_into_a_team_from_the_page(alice, team, as_user):
    from policyeditor.editor.services import create_draft

    mine = create_draft(alice, [policy(5)], name="mine")
    client = as_user(alice)
    assert "Move to team" in client.get(_page(mine, 1)).content.decode()
    client.post(reverse("review:assign_team", args=[mine.pk]), {"team": team.pk})
    mine.refresh_from_db()
    assert mine.workflow.team == team


def test_garbage_revision_numbers_are_404(draft, alice, as_user):
    client = as_user(alice)
    assert client.get(_page(draft, 99)).status_code == 404
    assert client.get(_page(draft, 1, against="abc")).status_code == 200


def test_a_viewer_sees_no_resolve_or_revoke_buttons_for_others_threads_and_links(
    draft, alice, carol, as_user
):
    comments.add_comment(alice, draft, workflow.latest_revision(draft), "alice's thread")
    workflow.create_share_link(alice, draft, workflow.latest_revision(draft))
    html = as_user(carol).get(_page(draft, 1)).content.decode()
    assert "alice&#x27;s thread" in html or "alice's thread" in html
    assert ">Resolve<" not in html and ">Revoke<" not in html
    html = as_user(alice).get(_page(draft, 1)).content.decode()
    assert ">Resolve<" in html and ">Revoke<" in html


def test_htmx_fragments_skip_the_badge_counts_full_pages_keep_them(draft, alice, bob):
    from django.test import RequestFactory
    from django_htmx.middleware import HtmxDetails

    from policyeditor.review.context_processors import reviews

    workflow.request_review(alice, draft)
    factory = RequestFactory()
    full = factory.get("/drafts/")
    fragment = factory.get("/drafts/", headers={"HX-Request": "true"})
    for request in (full, fragment):
        request.user = bob
        request.htmx = HtmxDetails(request)
    assert reviews(full)["reviews_waiting"] == 1
    assert reviews(fragment) == {}
