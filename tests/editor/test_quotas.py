"""Storage quotas stop one account (or team) filling the disk; saves that change nothing store nothing."""

from __future__ import annotations

import json

import pytest
from django.test import Client, override_settings

from policyeditor.api.models import ApiToken
from policyeditor.editor.models import Draft, Revision, UserQuota
from policyeditor.editor.quotas import QuotaExceeded, stored_size
from policyeditor.editor.services import create_draft, save_draft
from policyeditor.editor.starters import get_starter
from policyeditor.review.models import DraftWorkflow
from policyeditor.teams.models import Membership, Role, Team, TeamQuota

pytestmark = pytest.mark.django_db


def docs(message: str = "m", padding: int = 0) -> list[dict]:
    documents = get_starter("replica-limit").documents()
    documents[0]["spec"]["validations"][0]["message"] = message + "x" * padding
    return documents


def api(user) -> Client:
    return Client(HTTP_AUTHORIZATION=f"Token {ApiToken.issue(user, 'quota')[1]}")


@override_settings(POLICYEDITOR_QUOTA_USER_DRAFTS=3)
def test_creating_drafts_past_the_user_limit_is_refused_with_a_403_problem(alice):
    client = api(alice)
    statuses = [
        client.post("/api/v1/drafts", {"documents": docs()}, content_type="application/json")
        for _ in range(5)
    ]
    assert [r.status_code for r in statuses] == [201, 201, 201, 403, 403]
    problem = statuses[-1].json()
    assert problem["type"].endswith("/quota-exceeded")
    assert problem["quota"] == "drafts" and problem["limit"] == 3 and problem["used"] == 3
    assert "You have 3 drafts, the limit is 3" in problem["detail"]
    assert Draft.objects.filter(owner=alice).count() == 3


@override_settings(POLICYEDITOR_QUOTA_USER_BYTES=60_000)
def test_bulk_storage_is_stopped_at_the_byte_limit_and_the_form_says_why(alice):
    draft = create_draft(alice, docs())
    client = Client()
    client.force_login(alice)
    number = 1
    with pytest.raises(QuotaExceeded) as caught:
        for n in range(20):
            draft = save_draft(
                draft, docs(f"edit {n}", 10_000), expected_revision=number, author=alice
            )
            number = draft.revision
    assert caught.value.what == "bytes"
    stored = sum(Revision.objects.filter(draft__owner=alice).values_list("size", flat=True))
    assert stored <= 60_000
    # The editor's save button shows the same reason and stores nothing.
    from tests.security.hostile import as_yaml

    response = client.post(
        f"/drafts/{draft.pk}/save/",
        {"docs": "d1", "d1:yaml": as_yaml(docs("more", 10_000)[0]), "expected_revision": number},
        HTTP_HX_REQUEST="true",
    )
    assert "Not saved: Your drafts take" in response.content.decode()
    assert Draft.objects.get(pk=draft.pk).revision == number


@override_settings(POLICYEDITOR_QUOTA_USER_DRAFTS=1)
def test_an_administrator_override_raises_one_users_limit(alice, bob):
    create_draft(alice, docs())
    with pytest.raises(QuotaExceeded):
        create_draft(alice, docs())
    UserQuota.objects.create(user=alice, max_drafts=0)  # 0: no limit for alice
    create_draft(alice, docs())
    create_draft(bob, docs())
    with pytest.raises(QuotaExceeded):
        create_draft(bob, docs())  # bob still has the default


@override_settings(POLICYEDITOR_QUOTA_TEAM_REVISIONS=3)
def test_a_teams_drafts_share_the_team_revision_limit_and_its_override(alice, bob):
    team = Team.objects.create(name="platform")
    Membership.objects.create(team=team, user=alice, role=Role.AUTHOR)
    Membership.objects.create(team=team, user=bob, role=Role.AUTHOR)
    first, second = create_draft(alice, docs()), create_draft(bob, docs())
    for draft in (first, second):
        DraftWorkflow.objects.create(draft=draft, team=team)
    save_draft(first, docs("a"), expected_revision=1, author=alice)
    with pytest.raises(QuotaExceeded) as caught:
        save_draft(second, docs("b"), expected_revision=1, author=bob)
    assert "The drafts of team platform hold 3 revisions" in caught.value.message
    TeamQuota.objects.create(team=team, max_revisions=10)
    assert save_draft(second, docs("b"), expected_revision=1, author=bob).revision == 2


def test_a_save_that_changes_nothing_stores_no_revision_and_says_so(alice):
    draft = create_draft(alice, docs())
    client = api(alice)
    response = client.put(
        f"/api/v1/drafts/{draft.pk}",
        json.dumps({"documents": draft.documents}),
        content_type="application/json",
        HTTP_IF_MATCH='"1"',
    )
    assert response.status_code == 200
    assert response.json()["unchanged"] is True and response["ETag"] == '"1"'
    assert "nothing changed" in response["Policyeditor-Unchanged"]
    assert Revision.objects.filter(draft=draft).count() == 1
    changed = client.put(
        f"/api/v1/drafts/{draft.pk}",
        json.dumps({"documents": docs("new")}),
        content_type="application/json",
        HTTP_IF_MATCH='"1"',
    )
    assert changed.json()["unchanged"] is False and changed["ETag"] == '"2"'


def test_an_unchanged_save_from_the_editor_says_nothing_changed(alice):
    from tests.security.hostile import as_yaml

    draft = create_draft(alice, docs())
    client = Client()
    client.force_login(alice)
    fields = {"docs": [], "expected_revision": 1}
    for index, document in enumerate(draft.documents, 1):
        fields["docs"].append(f"d{index}")
        fields[f"d{index}:yaml"] = as_yaml(document)
    response = client.post(f"/drafts/{draft.pk}/save/", fields, HTTP_HX_REQUEST="true")
    assert "No changes to save: revision 1 is kept" in response.content.decode()
    assert Draft.objects.get(pk=draft.pk).revision == 1


def test_a_revision_records_the_bytes_it_stores(alice):
    draft = create_draft(alice, docs())
    assert Revision.objects.get(draft=draft).size == stored_size(draft.documents) > 0
