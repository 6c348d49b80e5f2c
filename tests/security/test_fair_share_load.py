"""One user sending runaway evaluations in parallel holds one share of the workers, not all of them.

Real concurrent clients against gunicorn (bench/loopback.py), as bench/load_test.py runs them.
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from load_test import RUNAWAYS  # noqa: E402
from loopback import LoopbackServer  # noqa: E402

RUNAWAY = RUNAWAYS[1]  # only the isolation deadline stops it: it holds a worker for the whole 1.5 s


def test_parallel_runaways_of_one_user_are_refused_past_their_share_and_others_still_get_served():
    settings = {
        "POLICYEDITOR_EVAL_PER_USER": "1",
        "POLICYEDITOR_EVAL_QUEUE_SECONDS": "0.3",
        "POLICYEDITOR_EVAL_TIMEOUT": "1.5",
    }
    with LoopbackServer(workers=3, accounts=2, settings=settings) as server:
        hostile, normal = server.users
        results: list = []
        lock = threading.Lock()
        start = threading.Barrier(4)

        def runaway() -> None:
            start.wait()
            response = server.api(hostile, "POST", "/api/v1/cel", {"expression": RUNAWAY})
            with lock:
                results.append(response)

        threads = [threading.Thread(target=runaway) for _ in range(3)]
        for thread in threads:
            thread.start()
        start.wait()
        # While the runaways run, another user's evaluation is answered (a worker stays free).
        threading.Event().wait(0.2)
        served = server.api(normal, "POST", "/api/v1/cel", {"expression": "1 + 1 == 2"})
        for thread in threads:
            thread.join(timeout=60)

        assert served.status == 200 and served.json()["value"] is True
        statuses = sorted(response.status for response in results)
        # One runaway ran to its deadline (422); the others found the user's one slot taken.
        assert statuses.count(422) >= 1
        refused = [response for response in results if response.status == 429]
        assert len(refused) >= 1, statuses
        for response in refused:
            assert int(response.headers["Retry-After"]) >= 1
            assert response.json()["type"].endswith("/evaluation-busy")
