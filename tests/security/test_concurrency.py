"""Two clients save the same draft revision: exactly one wins, the other is told, nothing is lost."""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path

import pytest
from django.test import Client

from policyeditor.api.models import ApiToken
from policyeditor.editor.models import Draft, Revision
from policyeditor.editor.services import create_draft
from policyeditor.editor.starters import get_starter
from tests.security.hostile import as_yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from loopback import LoopbackServer  # noqa: E402


def edited(documents: list[dict], message: str) -> list[dict]:
    """The documents with the first validation's message changed: one person's edit."""
    docs = json.loads(json.dumps(documents))
    docs[0]["spec"]["validations"][0]["message"] = message
    return docs


def token_client(user) -> Client:
    return Client(HTTP_AUTHORIZATION=f"Token {ApiToken.issue(user, 'concurrency')[1]}")


def put(client: Client, draft: Draft, documents: list[dict], etag: str):
    return client.put(
        f"/api/v1/drafts/{draft.pk}",
        json.dumps({"documents": documents}),
        content_type="application/json",
        HTTP_IF_MATCH=etag,
    )


@pytest.fixture
def shared(alice):
    return create_draft(alice, get_starter("replica-limit").documents())


@pytest.mark.django_db
def test_the_second_save_of_a_revision_gets_the_conflict_and_both_edits_survive(alice, shared):
    first, second = token_client(alice), token_client(alice)
    etag_a = first.get(f"/api/v1/drafts/{shared.pk}")["ETag"]
    etag_b = second.get(f"/api/v1/drafts/{shared.pk}")["ETag"]
    assert etag_a == etag_b == '"1"'
    mine, theirs = edited(shared.documents, "edit A"), edited(shared.documents, "edit B")

    won = put(first, shared, mine, etag_a)
    lost = put(second, shared, theirs, etag_b)

    assert won.status_code == 200 and won["ETag"] == '"2"'
    assert lost.status_code == 409
    problem = lost.json()
    assert problem["currentRevision"] == 2 and problem["yourRevision"] == 1
    assert "nothing was written" in problem["detail"]
    # The loser reloads, sees the winner's edit, re-applies theirs: both are in the history.
    current = second.get(f"/api/v1/drafts/{shared.pk}")
    assert current.json()["documents"] == mine
    retried = put(second, shared, theirs, current["ETag"])
    assert retried.status_code == 200 and retried["ETag"] == '"3"'
    history = dict(Revision.objects.filter(draft=shared).values_list("number", "documents"))
    assert history[2] == mine and history[3] == theirs


@pytest.mark.django_db
def test_a_browser_told_of_the_conflict_still_holds_its_edit(alice, shared, client):
    client.force_login(alice)
    api = token_client(alice)
    assert put(api, shared, edited(shared.documents, "from the API"), '"1"').status_code == 200
    response = client.post(
        f"/drafts/{shared.pk}/save/",
        {
            "docs": "d1",
            "d1:yaml": as_yaml(edited(shared.documents, "from the browser")[0]),
            "expected_revision": 1,
        },
    )
    assert response.status_code == 409
    html = response.content.decode()
    assert "while you were editing revision 1" in html
    assert "from the browser" in html  # the page re-renders the user's own edit, unsaved
    assert Draft.objects.get(pk=shared.pk).documents[0]["spec"]["validations"][0]["message"] == (
        "from the API"
    )


def test_two_simultaneous_saves_of_one_revision_never_both_succeed():
    """A real race on gunicorn with two workers and the WAL SQLite file `make serve` uses.

    (The test database is a shared in-memory SQLite whose table locks ignore the busy timeout,
    so the race is run against a real server instead.)
    """
    with LoopbackServer(workers=2, accounts=1) as server:
        account = server.users[0]
        path = f"/api/v1/drafts/{account.draft}"
        base = server.api(account, "GET", path, {}).json()["documents"]
        edits = [edited(base, f"racer {n}") for n in range(2)]
        start = threading.Barrier(2)
        results: list = [None, None]

        def racer(n: int) -> None:
            start.wait()
            results[n] = server.api(
                account, "PUT", path, {"documents": edits[n]}, **{"If-Match": '"1"'}
            )

        threads = [threading.Thread(target=racer, args=(n,)) for n in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        assert sorted(result.status for result in results) == [200, 409]
        winner = next(n for n, result in enumerate(results) if result.status == 200)
        loser = results[1 - winner].json()
        assert loser["currentRevision"] == 2 and loser["yourRevision"] == 1
        current = server.api(account, "GET", path, {}).json()
        assert current["revision"] == 2 and current["documents"] == edits[winner]
        first = server.api(account, "GET", f"{path}/revisions/1", {}).json()
        assert first["documents"] == base  # the revision both started from is intact
