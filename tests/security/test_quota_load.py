"""Concurrent clients of one user cannot store past the quota together (gunicorn, real clients)."""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from loopback import LoopbackServer  # noqa: E402

DRAFTS = 6  # the loopback account already owns one draft


def test_parallel_draft_creation_stops_at_the_users_draft_quota():
    settings = {
        "POLICYEDITOR_QUOTA_USER_DRAFTS": str(DRAFTS),
        "POLICYEDITOR_API_THROTTLE_RATE": "off",
    }
    with LoopbackServer(workers=4, accounts=1, settings=settings) as server:
        account = server.users[0]
        body = server.api(account, "GET", f"/api/v1/drafts/{account.draft}", {}).json()
        statuses: list[int] = []
        lock = threading.Lock()
        start = threading.Barrier(8)

        def client() -> None:
            start.wait()
            for _ in range(3):
                response = server.api(
                    account, "POST", "/api/v1/drafts", {"documents": body["documents"]}
                )
                with lock:
                    statuses.append(response.status)
                if response.status == 403:
                    assert json.loads(response.body)["type"].endswith("/quota-exceeded")

        threads = [threading.Thread(target=client) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
        assert len(statuses) == 24 and set(statuses) <= {201, 403}
        assert statuses.count(201) == DRAFTS - 1
        listed = server.api(account, "GET", "/api/v1/drafts", {}).json()
        assert listed["count"] == DRAFTS
