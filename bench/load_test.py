"""Load test: 20 normal clients on validate/preview plus one client sending runaway expressions.

Starts gunicorn (several workers) on a free 127.0.0.1 port with a temporary database (see
loopback.py), then for LOAD_SECONDS (default 20) runs, at the same time:
- 20 normal clients in a closed loop, each on its own draft: live validation of the editor form,
  the Try-it preview (evaluation), and POST /api/v1/validate, in turn;
- one hostile client: runaway CEL through /api/v1/cel and /api/v1/evaluate (cost-limited nested
  comprehensions, and string doubling that only the isolation deadline stops).
Prints the request count, the errors of the normal clients (must be 0) and their p50/p95/p99,
and how fast each runaway was refused. Runnable alone (`python bench/load_test.py`) or from
`make bench` (bench_load.py calls run()).
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from common import Goal, percentiles  # noqa: E402
from loopback import Account, LoopbackServer, Response  # noqa: E402

CLIENTS = int(os.environ.get("LOAD_CLIENTS", "20"))
SECONDS = float(os.environ.get("LOAD_SECONDS", "20"))
WORKERS = int(os.environ.get("LOAD_WORKERS", "4"))

POLICY_YAML = """apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: replica-limit.example.com
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups: [apps]
      apiVersions: [v1]
      operations: [CREATE, UPDATE]
      resources: [deployments]
  variables:
  - name: replicas
    expression: "has(object.spec.replicas) ? object.spec.replicas : 1"
  validations:
  - expression: variables.replicas <= 5
    messageExpression: "'replicas ' + string(variables.replicas) + ' exceed 5'"
  - expression: object.metadata.name.matches('^[a-z0-9-]+$')
    message: names are lowercase
"""
DEPLOYMENT_YAML = """apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec: {replicas: %d}
"""
BIG_LIST = "[" + ",".join(str(i) for i in range(1000)) + "]"
RUNAWAYS = [
    # Stopped by the Kubernetes cost limit (a 200 with the runtime error).
    f"{BIG_LIST}.all(x, {BIG_LIST}.all(y, {BIG_LIST}.all(z, x + y + z >= 0)))",
    # Slow and huge while its runtime cost stays tiny (`format` counts 1 here, docs/fidelity.md):
    # only the isolation deadline stops it.
    "['a']" + ".map(x, '%s%s%s%s%s%s%s%s'.format([x, x, x, x, x, x, x, x]))" * 10 + ".size() > 0",
]


def normal_request(server: LoopbackServer, account: Account, turn: int) -> Response:
    """One request a person editing a draft makes, by turn: validate, try it, API validate."""
    form = {"docs": "d1", "d1:yaml": POLICY_YAML, "kubernetes_version": "1.34"}
    kind = turn % 3
    if kind == 0:
        return server.ui_post(account, f"/drafts/{account.draft}/validate/", form)
    if kind == 1:
        form["try_object"] = DEPLOYMENT_YAML % (turn % 9)
        return server.ui_post(account, f"/drafts/{account.draft}/try/", form)
    return server.request(
        "POST",
        "/api/v1/validate?kubernetesVersion=1.34",
        POLICY_YAML,
        headers={"Authorization": f"Token {account.token}", "Content-Type": "application/yaml"},
    )


def normal_ok(kind: int, response: Response) -> bool:
    """Whether a normal request got the answer it should (never a 4xx/5xx)."""
    if response.status != 200:
        return False
    if kind == 2:
        return response.json().get("valid") is True
    return b"Server Error" not in response.body


def runaway_refused(response: Response) -> str:
    """How a runaway was refused ("cost", "deadline"), or "" if it was not refused properly."""
    if response.status == 200:
        error = (response.json().get("error") or {}).get("message", "")
        return "cost" if "cost limit exceeded" in error else ""
    if response.status == 422 and "exceeded the time limit" in response.json().get("detail", ""):
        return "deadline"
    return ""


def load(server: LoopbackServer, seconds: float) -> dict:
    """Run the clients for `seconds`; the figures."""
    stop = time.monotonic() + seconds
    latencies: list[float] = []
    errors: list[str] = []
    runaway: list[tuple[str, float]] = []
    lock = threading.Lock()
    normal_accounts, hostile = server.users[:CLIENTS], server.users[CLIENTS]

    def normal(account: Account) -> None:
        turn = 0
        while time.monotonic() < stop:
            try:
                response = normal_request(server, account, turn)
                ok, took = normal_ok(turn % 3, response), response.seconds
                detail = f"HTTP {response.status}: {response.body[:200]!r}"
            except Exception as exc:  # a dropped connection is an error to count, not a crash
                ok, took, detail = False, 0.0, f"{type(exc).__name__}: {exc}"
            with lock:
                latencies.append(took)
                if not ok:
                    errors.append(detail)
            turn += 1

    def attacker() -> None:
        turn = 0
        while time.monotonic() < stop:
            expression = RUNAWAYS[turn % len(RUNAWAYS)]
            try:
                response = server.api(hostile, "POST", "/api/v1/cel", {"expression": expression})
                how = runaway_refused(response)
                took = response.seconds
            except Exception as exc:
                how, took = f"failed: {exc}", 0.0
            with lock:
                runaway.append((how, took))
            turn += 1

    threads = [threading.Thread(target=normal, args=(a,)) for a in normal_accounts]
    threads.append(threading.Thread(target=attacker))
    log_start = server.access_log_size()
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - started
    time.sleep(0.5)  # gunicorn writes the access log line after the response
    return {
        "elapsed": elapsed,
        "latencies": latencies,
        "errors": errors,
        "runaway": runaway,
        "held": server.access_entries(log_start),
    }


def report(figures: dict) -> list[Goal]:
    """Print the figures; the goals they meet or not."""
    latencies, errors, runaway = figures["latencies"], figures["errors"], figures["runaway"]
    cuts = percentiles(latencies) if latencies else {"p50": 0.0, "p95": 0.0, "p99": 0.0}
    refused = Counter(how or "NOT refused" for how, _ in runaway)
    slowest_runaway = max((took for _, took in runaway), default=0.0)
    print(
        f"normal clients: {CLIENTS}, {len(latencies)} requests in {figures['elapsed']:.1f}s "
        f"({len(latencies) / max(figures['elapsed'], 1e-9):.1f}/s), errors: {len(errors)}"
    )
    print(
        f"latency p50 {cuts['p50'] * 1000:.0f} ms, p95 {cuts['p95'] * 1000:.0f} ms, "
        f"p99 {cuts['p99'] * 1000:.0f} ms, max {max(latencies, default=0) * 1000:.0f} ms"
    )
    print(
        f"runaway client: {len(runaway)} requests, refused by "
        + ", ".join(f"{how}: {count}" for how, count in sorted(refused.items()))
        + f"; slowest answer {slowest_runaway * 1000:.0f} ms"
    )
    held = sorted(figures["held"], key=lambda entry: entry[3], reverse=True)
    longest_hold = held[0][3] if held else 0.0
    print(
        f"server side: {len(held)} requests logged, longest time a request held a worker "
        f"{longest_hold * 1000:.0f} ms; the longest: "
        + ", ".join(f"{m} {path} {status} {sec * 1000:.0f} ms" for m, path, status, sec in held[:3])
    )
    for detail in errors[:5]:
        print("  error:", detail)
    not_refused = sum(1 for how, _ in runaway if how not in ("cost", "deadline"))
    # Server side: how long the runaway requests held a worker (client time adds queueing).
    runaway_hold = max((sec for _, path, _, sec in held if path == "/api/v1/cel"), default=0.0)
    return [
        Goal("load: errors of the normal clients", len(errors), 0, unit=""),
        Goal("load: normal requests served", len(latencies), 100, unit="", lower_is_better=False),
        Goal("load: longest time one request held a web worker", longest_hold, 2.0, unit="s"),
        Goal("load: p99 latency of the normal clients", cuts["p99"], 2.0, unit="s"),
        Goal("load: runaway requests not refused", not_refused, 0, unit=""),
        Goal("load: longest hold of a worker by a runaway", runaway_hold, 2.0, unit="s"),
    ]


def warm_up(server: LoopbackServer) -> None:
    """Requests in parallel until every gunicorn worker has its caches and engine pool started."""
    for _ in range(3):
        threads = [
            threading.Thread(target=normal_request, args=(server, account, turn))
            for account in server.users[:CLIENTS]
            for turn in (0, 1, 2)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()


def run() -> list[Goal]:
    """Start the server, run the load, print and return the goals."""
    print(f"starting gunicorn with {WORKERS} workers on 127.0.0.1 ...", flush=True)
    with LoopbackServer(workers=WORKERS, accounts=CLIENTS + 1) as server:
        print(f"serving on 127.0.0.1:{server.port}; loading for {SECONDS:g}s", flush=True)
        warm_up(server)
        return report(load(server, SECONDS))


def main() -> int:
    """Run alone: exit 1 when a goal is not met."""
    goals = run()
    for goal in goals:
        print(goal.line())
    return 0 if all(goal.met for goal in goals) else 1


if __name__ == "__main__":
    raise SystemExit(main())
