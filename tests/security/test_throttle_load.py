"""Many concurrent clients of one token against gunicorn get exactly the rate, not ~20% more."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from loopback import LoopbackServer  # noqa: E402

LIMIT = 60
CLIENTS = 16
REQUESTS_EACH = 10  # 80 requests for a budget of 40


def test_concurrent_requests_of_one_token_never_pass_the_limit():
    # An hour's window: the test never straddles a window boundary far enough to matter.
    settings = {"POLICYEDITOR_API_THROTTLE_RATE": f"{LIMIT}/hour"}
    with LoopbackServer(workers=4, accounts=1, settings=settings) as server:
        account = server.users[0]
        statuses: list[int] = []
        lock = threading.Lock()
        start = threading.Barrier(CLIENTS)

        def client() -> None:
            start.wait()
            for _ in range(REQUESTS_EACH):
                status = server.api(account, "GET", "/api/v1/drafts", {}).status
                with lock:
                    statuses.append(status)

        threads = [threading.Thread(target=client) for _ in range(CLIENTS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)

        assert len(statuses) == CLIENTS * REQUESTS_EACH
        assert set(statuses) <= {200, 429}
        assert statuses.count(200) == LIMIT
