"""Review over HTTP: review requests, decisions, comments and saved test cases, per role."""

from __future__ import annotations

import copy

import pytest

from policyeditor.api.examples import DEPLOYMENT, POLICY
from policyeditor.editor.models import Status
from policyeditor.editor.services import save_draft
from policyeditor.review.models import Comment, SavedTestCase
from tests.api.conftest import client_for

pytestmark = pytest.mark.django_db

CASE = {"name": "six replicas are denied", "object": DEPLOYMENT, "expect": {"result": "deny"}}


def path(draft, tail: str) -> str:
    return f"/api/v1/drafts/{draft.pk}/{tail}"


def status_of(draft) -> str:
    draft.refresh_from_db()
    return draft.status


# --- review requests and decisions ----------------------------------------------------------


def test_an_author_requests_a_review_and_a_reviewer_approves(team_draft, alice, bob):
    response = client_for(alice).post(path(team_draft, "review-request"), {"note": "please"})
    assert response.status_code == 200
    assert response.json()["status"] == Status.IN_REVIEW
    review = client_for(bob).post(
        path(team_draft, "reviews"), {"decision": "approve", "revision": 1}
    )
    assert review.status_code == 201
    assert review.json()["reviewer"] == "bob" and review.json()["decision"] == "approve"
    assert status_of(team_draft) == Status.APPROVED
    listed = client_for(alice).get(path(team_draft, "reviews")).json()
    assert [(r["reviewer"], r["revision"]) for r in listed] == [("bob", 1)]


def test_a_reviewer_requests_changes_with_a_reason(team_draft, alice, bob):
    client_for(alice).post(path(team_draft, "review-request"), {})
    response = client_for(bob).post(
        path(team_draft, "reviews"),
        {"decision": "request_changes", "revision": 1, "body": "limit 3"},
    )
    assert response.status_code == 201
    assert status_of(team_draft) == Status.CHANGES_REQUESTED


def test_requesting_changes_without_saying_what_is_a_400(team_draft, alice, bob):
    client_for(alice).post(path(team_draft, "review-request"), {})
    response = client_for(bob).post(
        path(team_draft, "reviews"), {"decision": "request_changes", "revision": 1}
    )
    assert response.status_code == 400
    assert response.json()["errors"] == [{"path": "body", "message": "say what should change"}]


def test_a_viewer_cannot_request_a_review(team_draft, carol):
    response = client_for(carol).post(path(team_draft, "review-request"), {})
    assert response.status_code == 403
    assert response.json()["detail"] == "Only authors of this team can request a review."


def test_an_author_cannot_approve(team_draft, alice):
    client_for(alice).post(path(team_draft, "review-request"), {})
    response = client_for(alice).post(
        path(team_draft, "reviews"), {"decision": "approve", "revision": 1}
    )
    assert response.status_code == 403


def test_approving_a_draft_not_in_review_is_a_409(team_draft, bob):
    response = client_for(bob).post(
        path(team_draft, "reviews"), {"decision": "approve", "revision": 1}
    )
    assert response.status_code == 409
    assert response.json()["detail"] == "This draft is not in review."


def test_approving_a_stale_revision_is_a_409(team_draft, alice, bob):
    client_for(alice).post(path(team_draft, "review-request"), {})
    save_draft(team_draft, [POLICY], expected_revision=1, author=alice)
    response = client_for(bob).post(
        path(team_draft, "reviews"), {"decision": "approve", "revision": 1}
    )
    assert response.status_code == 409
    assert "no longer the latest" in response.json()["detail"]


def test_requesting_a_review_twice_is_a_409(team_draft, alice):
    client_for(alice).post(path(team_draft, "review-request"), {})
    response = client_for(alice).post(path(team_draft, "review-request"), {})
    assert response.status_code == 409
    assert response.json()["detail"] == "This draft is already in review."


def test_a_personal_draft_has_no_review(api, draft):
    response = api.post(path(draft, "review-request"), {})
    assert response.status_code == 409
    assert "belongs to no team" in response.json()["detail"]


def test_withdrawing_a_review_request_returns_to_draft(team_draft, alice):
    client_for(alice).post(path(team_draft, "review-request"), {})
    response = client_for(alice).delete(path(team_draft, "review-request"))
    assert response.status_code == 200
    assert response.json()["status"] == Status.DRAFT


def test_outsiders_get_404_for_review_endpoints(team_draft, make_user):
    outsider = client_for(make_user("mallory"))
    assert outsider.post(path(team_draft, "review-request"), {}).status_code == 404
    assert outsider.get(path(team_draft, "reviews")).status_code == 404
    assert outsider.get(path(team_draft, "comments")).status_code == 404


# --- comments -------------------------------------------------------------------------------


def test_a_viewer_comments_on_a_field_and_others_reply(team_draft, carol, bob):
    response = client_for(carol).post(
        path(team_draft, "comments"),
        {"body": "why 5?", "fieldPath": "spec.validations[0].expression"},
    )
    assert response.status_code == 201
    root = response.json()
    assert (root["author"], root["revision"], root["fieldPath"]) == (
        "carol",
        1,
        "spec.validations[0].expression",
    )
    reply = client_for(bob).post(
        path(team_draft, "comments"), {"body": "the quota", "parent": root["id"]}
    )
    assert reply.json()["parent"] == root["id"]
    listed = client_for(carol).get(path(team_draft, "comments"), revision="1").json()
    assert [c["body"] for c in listed] == ["why 5?", "the quota"]


def test_an_empty_comment_is_a_400(team_draft, carol):
    response = client_for(carol).post(path(team_draft, "comments"), {"body": "   "})
    assert response.status_code == 400


def test_a_bad_field_path_is_a_400_with_the_reason(team_draft, carol):
    response = client_for(carol).post(
        path(team_draft, "comments"), {"body": "x", "fieldPath": "spec..x"}
    )
    assert response.status_code == 400
    assert "is not a field path" in response.json()["detail"]


def test_a_reply_to_a_missing_thread_is_a_404(team_draft, carol):
    response = client_for(carol).post(path(team_draft, "comments"), {"body": "x", "parent": 99999})
    assert response.status_code == 404


def test_a_thread_is_resolved_and_reopened(team_draft, carol, alice):
    root = client_for(carol).post(path(team_draft, "comments"), {"body": "why 5?"}).json()
    resolved = client_for(alice).post(
        path(team_draft, f"comments/{root['id']}/resolve"), {"resolved": True}
    )
    assert resolved.status_code == 200 and resolved.json()["resolved"] is True
    reopened = client_for(alice).post(
        path(team_draft, f"comments/{root['id']}/resolve"), {"resolved": False}
    )
    assert reopened.json()["resolved"] is False
    assert Comment.objects.get(pk=root["id"]).resolved is False


def test_a_viewer_cannot_resolve_someone_elses_thread(team_draft, alice, carol):
    root = client_for(alice).post(path(team_draft, "comments"), {"body": "note"}).json()
    response = client_for(carol).post(path(team_draft, f"comments/{root['id']}/resolve"), {})
    assert response.status_code == 403


# --- test cases -----------------------------------------------------------------------------


def test_an_author_saves_lists_and_runs_test_cases(api, draft):
    response = api.post(path(draft, "test-cases"), CASE)
    assert response.status_code == 201, response.content
    assert response.json()["name"] == CASE["name"]
    assert [c["name"] for c in api.get(path(draft, "test-cases")).json()] == [CASE["name"]]
    report = api.post(path(draft, "test-cases/run")).json()
    assert (report["revision"], report["passed"], report["failed"]) == (1, 1, 0), report
    assert report["cases"][0]["result"] == "deny"
    assert report["cases"][0]["vacuous"] == ""


def test_a_case_allowed_because_no_policy_matched_says_so(api, draft):
    configmap = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}
    api.post(
        path(draft, "test-cases"), {"name": "cm", "object": configmap, "expect": {"allowed": True}}
    )
    (case,) = api.post(path(draft, "test-cases/run")).json()["cases"]
    assert case["passed"] is True
    assert case["vacuous"] == "allowed: no policy matched the request"


def test_a_failing_case_reports_why(api, draft):
    api.post(path(draft, "test-cases"), {**CASE, "expect": {"result": "allow"}})
    report = api.post(path(draft, "test-cases/run")).json()
    assert report["failed"] == 1
    assert any("expected result allow, got deny" in text for text in report["cases"][0]["failures"])


def test_a_case_without_expect_is_a_400(api, draft):
    response = api.post(path(draft, "test-cases"), {"name": "x", "object": DEPLOYMENT})
    assert response.status_code == 400
    assert response.json()["detail"] == "A test case needs `expect` (result, messages, ...)."


def test_a_viewer_cannot_save_test_cases(team_draft, carol):
    assert client_for(carol).post(path(team_draft, "test-cases"), CASE).status_code == 403


def test_a_test_case_is_deleted(api, draft):
    saved = api.post(path(draft, "test-cases"), CASE).json()
    assert api.delete(path(draft, f"test-cases/{saved['id']}")).status_code == 204
    assert not SavedTestCase.objects.filter(pk=saved["id"]).exists()


def test_running_on_a_missing_revision_is_a_404(api, draft):
    assert api.post(path(draft, "test-cases/run") + "?revision=9").status_code == 404


def test_a_run_compares_with_the_approved_revision(team_draft, alice, bob):
    author = client_for(alice)
    author.post(path(team_draft, "test-cases"), CASE)
    author.post(path(team_draft, "review-request"), {})
    client_for(bob).post(path(team_draft, "reviews"), {"decision": "approve", "revision": 1})
    looser = copy.deepcopy(POLICY)
    looser["spec"]["validations"][0]["expression"] = "object.spec.replicas <= 10"
    team_draft.refresh_from_db()
    save_draft(team_draft, [looser], expected_revision=team_draft.revision, author=alice)
    report = author.post(path(team_draft, "test-cases/run")).json()
    assert report["baseline"] == 1
    assert report["changes"] == [{"name": CASE["name"], "before": "deny", "after": "allow"}]
    assert report["summary"] == ["This change now allows 1 object that was denied."]
