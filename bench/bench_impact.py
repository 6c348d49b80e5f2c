"""Impact analysis at cluster scale: 5,000 and 50,000 objects through the CLI and the queued web path.

Prints objects/s, the ratio of the per-object time between the sizes (linear: about 1), peak
resident memory per process, each task worker's rate against the engine's single-evaluation rate
(an engine process evaluating beside each worker, in the same seconds), and how fast another page
answers while a worker runs a policy that loops on some objects.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import resource
import select
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from common import Goal

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests import builders  # noqa: E402
from tests.builders import replica_limit, vap_binding  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SIZES = (5_000, 50_000)
WORKERS = 2
ROUNDS = 3  # runs of the largest dump, timed alone
SIDE_BY_SIDE = 5  # runs of the largest dump with an engine process beside each worker
POLICY = replica_limit(
    5,
    validations=[
        {"expression": "object.spec.replicas <= 5", "message": "at most 5 replicas"},
        {"expression": "object.metadata.name.size() < 64", "message": "short names"},
    ],
)
BINDING = vap_binding("replica-limit-binding", "replica-limit.example.com")


def deployment(i: int) -> dict:
    """A Deployment as `kubectl get -o json` prints it, managedFields included."""
    name = f"slow-{i}" if i < 0 else f"web-{i}"
    obj = builders.deployment(name, f"team-{i % 40}", abs(i) % 8, {"app": name})
    obj["metadata"]["managedFields"] = [
        {"manager": "kubectl", "operation": "Apply", "fieldsV1": {}}
    ]
    obj["spec"]["selector"] = {"matchLabels": {"app": name}}
    obj["spec"]["template"] = {
        "metadata": {"labels": {"app": name}},
        "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]},
    }
    return obj


def write_dump(path: Path, count: int, extra: list[dict] | None = None) -> None:
    """A gzipped `kubectl get deploy -A -o json` of `count` Deployments, written as a stream."""
    with gzip.open(path, "wt", encoding="utf-8") as out:
        out.write('{"apiVersion": "v1", "kind": "List", "items": [')
        items = (extra or []) + [deployment(i) for i in range(count)]
        for index, item in enumerate(items):
            out.write(("," if index else "") + json.dumps(item, indent=4))
        out.write("]}")


def engine_rate() -> float:
    """Objects per second of the engine evaluating in this process (no isolation, no database)."""
    sys.path.insert(0, str(ROOT))
    from policyeditor.engine.impact import Job, evaluate_batch

    job = Job([POLICY, BINDING], "1.34")
    objects = objects_as_read(2000)
    evaluate_batch(job, objects[:100])
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        evaluate_batch(job, objects)
        best = min(best, time.perf_counter() - start)
    return len(objects) / best


def objects_as_read(count: int) -> list[dict]:
    """Generated Deployments as a task worker gets them: through the dump reader (managedFields gone)."""
    sys.path.insert(0, str(ROOT))
    from policyeditor.engine import impact

    text = json.dumps(
        {"apiVersion": "v1", "kind": "List", "items": [deployment(i) for i in range(count)]}
    )
    return list(impact.iter_objects(impact.open_dump(io.BytesIO(text.encode()))))


def probe() -> None:
    """Evaluate in a loop from "go" to "stop" on stdin; print objects/s over that window.

    The engine measured beside the workers (see EngineBeside), on the objects they evaluate.
    Standard input is read as bytes from its descriptor: a buffered readline could swallow a
    "stop" that came with the "go", and select would then wait for it for ever.
    """
    from policyeditor.engine.impact import Job, evaluate_batch

    job = Job([POLICY, BINDING], "1.34")
    objects = objects_as_read(2000)  # distinct objects: more than the caches hold, as in a run
    evaluate_batch(job, objects[:100])
    print("ready", flush=True)
    assert os.read(0, 3) == b"go\n"
    count, start = 0, time.perf_counter()
    end = start
    while not select.select([0], [], [], 0)[0]:
        evaluate_batch(job, objects[count % 2000 : count % 2000 + 100])
        count += 100
        end = time.perf_counter()
    print(count / (end - start) if count else 0.0, flush=True)


class EngineBeside:
    """WORKERS engine processes evaluating while the workers run: the goal's engine rate.

    The machine's speed drifts by a third within minutes, and a core runs 10 to 25% slower while
    the other is busy too: an engine measured alone, before or after a run, compares the workers
    with a faster machine than the one they ran on. Measured in the same seconds, on the same cores
    (one engine process per worker, the scheduler sharing the cores alike), the ratio is the
    workers' own overhead: the queue, the database, reading the dump, isolation. web_run starts
    and stops them with its own clock.
    """

    def __init__(self) -> None:
        self.procs = [
            subprocess.Popen(
                [sys.executable, "-c", "import bench_impact; bench_impact.probe()"],
                cwd=Path(__file__).resolve().parent,
                env={**os.environ, "PYTHONPATH": str(ROOT)},
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            for _ in range(WORKERS)
        ]
        self.rates: list[float] = []
        for proc in self.procs:
            assert proc.stdout is not None and proc.stdout.readline() == "ready\n"

    def _tell(self, word: str) -> None:
        for proc in self.procs:
            assert proc.stdin is not None
            proc.stdin.write(word + "\n")
            proc.stdin.flush()

    def start(self) -> None:
        """The engine processes start evaluating."""
        self._tell("go")

    def stop(self) -> None:
        """They stop, and say how fast they went."""
        self._tell("stop")
        self.rates = [float(proc.communicate(timeout=60)[0]) for proc in self.procs]

    def close(self) -> None:
        """Stop any that is still running (a run that failed)."""
        for proc in self.procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()

    @property
    def rate(self) -> float:
        """Objects/s of one engine process over the window (the mean of the processes)."""
        return statistics.mean(self.rates)


def peak_child_mib() -> float:
    """The largest resident set of any finished child process so far, in MiB."""
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def cli(folder: Path, dump: Path) -> float:
    """Seconds for `policyeditor impact` over the dump with WORKERS jobs."""
    policy = folder / "policy.json"
    policy.write_text("\n---\n".join(json.dumps(d) for d in (POLICY, BINDING)))
    start = time.perf_counter()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "policyeditor",
            "impact",
            str(policy),
            "--dump",
            str(dump),
            "-j",
            str(WORKERS),
            "-o",
            "json",
            "--no-fail-on-new-denials",
            "--k8s-version",
            "1.34",
        ],
        cwd=ROOT,
        capture_output=True,
        check=True,
    )
    seconds = time.perf_counter() - start
    assert json.loads(done.stdout)["objects"] > 0
    return seconds


def start_workers(count: int) -> list[subprocess.Popen]:
    """`count` long-running `manage.py db_worker` processes, as `make serve` starts them.

    Returned once each polls for tasks, so their start-up is not measured with what follows.
    """
    import django_env

    django_env.setup()  # the workers share the benchmark's database (DATABASE_URL)
    procs = [
        subprocess.Popen(
            [sys.executable, "manage.py", "db_worker", "--no-reload", "--no-startup-delay"]
            + ["--interval", "0.2", "--verbosity", "1"],
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,  # where the project's logging says "Starting worker"
            text=True,
        )
        for _ in range(count)
    ]
    for proc in procs:
        assert proc.stdout is not None
        for line in proc.stdout:
            if "Starting worker" in line:
                break
        # Keep reading what it logs, or a full pipe would stop it.
        threading.Thread(target=proc.stdout.read, daemon=True).start()
    return procs


def stop_workers(procs: list[subprocess.Popen]) -> None:
    """SIGTERM (a worker stops between tasks), then wait for each."""
    for p in procs:
        if p.poll() is None:
            p.terminate()
    for p in procs:
        try:
            p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def web_run(
    dump: Path,
    documents: list[dict],
    *,
    measure_pages: bool = False,
    beside: EngineBeside | None = None,
):
    """Seconds from queueing a run of the dump to its end, with the workers already running;
    `beside` evaluates over exactly those seconds."""
    import django_env

    django_env.setup()
    from django.core.files import File

    from policyeditor.editor.services import create_draft
    from policyeditor.review import impact_runs
    from policyeditor.review.models import ImpactRun

    client, user = django_env.client_for("bench-impact")
    # The version the engine rate and the CLI evaluate with: the same work on both sides.
    draft = create_draft(
        user, documents, name=f"impact-{time.time_ns()}", kubernetes_version="1.34"
    )
    revision = draft.revisions.get(number=1)
    ImpactRun.objects.filter(created_by=user).update(state=ImpactRun.State.DONE)
    latencies = []
    if beside is not None:
        beside.start()
    start = time.perf_counter()
    with open(dump, "rb") as handle:
        run = impact_runs.start_run(user, draft, revision, File(handle, name="dump.json.gz"))
    # Polled every 50 ms for the timing's sake, reading the state alone: the harness's own CPU
    # is taken from the workers it measures.
    finished = (ImpactRun.State.DONE, ImpactRun.State.FAILED, ImpactRun.State.CANCELLED)
    state = ImpactRun.objects.filter(pk=run.pk).values_list("state", flat=True)
    while state.get() not in finished:
        if measure_pages:
            t0 = time.perf_counter()
            response = client.get("/reviews/")
            latencies.append(time.perf_counter() - t0)
            assert response.status_code == 200
        time.sleep(0.05)
    seconds = time.perf_counter() - start
    if beside is not None:
        beside.stop()
    run.refresh_from_db()
    assert run.state == "done", (run.state, run.error)
    return seconds, run, latencies


def busy_rates(run) -> list[float]:
    """Per worker: objects evaluated / seconds spent in this run's tasks (reading included)."""
    from django_tasks_db.models import DBTaskResult

    from policyeditor.review.models import ImpactChunk

    counts = dict(ImpactChunk.objects.filter(run=run).values_list("pk", "count"))
    busy: dict[str, float] = {}
    objects: dict[str, int] = {}
    for task in DBTaskResult.objects.filter(started_at__gte=run.created, finished_at__isnull=False):
        args = task.args_kwargs.get("args") or [None]
        if task.task_path.endswith("prepare_run") and args[0] == run.pk:
            mine = 0
        elif task.task_path.endswith("run_chunk") and args[0] in counts:
            mine = counts[args[0]]
        else:
            continue
        worker = task.worker_ids[-1]
        busy[worker] = busy.get(worker, 0.0) + (task.finished_at - task.started_at).total_seconds()
        objects[worker] = objects.get(worker, 0) + mine
    return [objects[w] / busy[w] for w in busy if busy[w] > 0]


def run() -> list[Goal]:
    """Measure and print; the goals of issue 18."""
    goals: list[Goal] = []
    ratio = 0.0
    with tempfile.TemporaryDirectory(prefix="bench-impact-") as tmp:
        folder = Path(tmp)
        cli_rates, web_rates = {}, {}
        workers = start_workers(WORKERS)
        try:
            for size in SIZES:
                dump = folder / f"dump-{size}.json.gz"
                write_dump(dump, size)
                seconds = cli(folder, dump)
                cli_rates[size] = size / seconds
                print(
                    f"CLI -j {WORKERS}, {size} objects: {seconds:.1f}s, {size / seconds:.0f} objects/s, peak RSS so far {peak_child_mib():.0f} MiB"
                )
                times = []
                for _ in range(ROUNDS if size == SIZES[-1] else 1):
                    seconds, run_row, _ = web_run(dump, [POLICY, BINDING])
                    times.append(seconds)
                    print(
                        f"web, {WORKERS} db_workers, {size} objects: {seconds:.1f}s, {size / seconds:.0f} objects/s; "
                        f"while busy each worker ran {', '.join(f'{r:.0f}' for r in busy_rates(run_row))} objects/s"
                    )
                web_rates[size] = size / statistics.median(times)
            # The goal's ratio: the workers and an engine process beside each, in the same seconds.
            ratios = []
            for _ in range(SIDE_BY_SIDE):
                engine = EngineBeside()
                try:
                    seconds, _, _ = web_run(dump, [POLICY, BINDING], beside=engine)
                finally:
                    engine.close()
                ratios.append(size / seconds / WORKERS / engine.rate)
                print(
                    f"side by side: web {size} objects in {seconds:.1f}s, each worker {size / seconds / WORKERS:.0f} objects/s; "
                    f"each engine process beside them {engine.rate:.0f} objects/s: {ratios[-1]:.2f}x"
                )
            ratio = statistics.median(ratios)
            alone = max(engine_rate(), engine_rate())
            print(
                f"engine alone, one process on the otherwise idle machine: {alone:.0f} objects/s; "
                f"each worker's rate ({size} objects, nothing beside) / that: {web_rates[size] / WORKERS / alone:.2f}x "
                "(a second figure, not the goal's: the idle core and the drift count against the workers)"
            )
        finally:
            stop_workers(workers)
        # Before the looping run: its runaway objects grow towards the CEL workers' memory cap.
        peak = peak_child_mib()
        print(
            f"peak RSS of any process (db_workers and their CEL workers included): {peak:.0f} MiB"
        )
        # A policy that loops on two objects: they run into the deadline while pages are served.
        looping = json.loads(json.dumps(POLICY))
        runaway = (
            "['a']"
            + ".map(x, '%s%s%s%s%s%s%s%s'.format([x, x, x, x, x, x, x, x]))" * 10
            + ".size() > 0"
        )
        looping["spec"]["validations"][0]["expression"] = (
            f"object.metadata.name.startsWith('slow') ? ({runaway}) : object.spec.replicas <= 5"
        )
        dump = folder / "looping.json.gz"
        write_dump(dump, 500, [deployment(-1), deployment(-2)])
        workers = start_workers(1)
        try:
            seconds, run_row, latencies = web_run(dump, [looping, BINDING], measure_pages=True)
        finally:
            stop_workers(workers)
        errors = run_row.results.filter(create_result="error").count()
        p95 = (
            statistics.quantiles(latencies, n=20)[-1] * 1000
            if len(latencies) >= 20
            else max(latencies) * 1000
        )
        print(
            f"looping policy, 502 objects: {seconds:.1f}s, {errors} errors; another page: median {statistics.median(latencies) * 1000:.0f} ms, p95 {p95:.0f} ms over {len(latencies)} loads"
        )
        small, large = SIZES
        goals.append(
            Goal(
                "CLI per-object time, 50k / 5k (linear)", cli_rates[small] / cli_rates[large], 1.25
            )
        )
        goals.append(
            Goal(
                "web per-object time, 50k / 5k (linear)", web_rates[small] / web_rates[large], 1.25
            )
        )
        goals.append(Goal("web: 50,000 objects with 2 workers", large / web_rates[large], 60, "s"))
        goals.append(
            Goal(
                f"each worker's rate / an engine process's beside it (median of {SIDE_BY_SIDE} runs)",
                ratio,
                0.8,
                "x",
                lower_is_better=False,
            )
        )
        goals.append(Goal("peak RSS of any process", peak, 600, " MiB"))
        goals.append(Goal("page load while a looping run goes on (p95)", p95, 200, " ms"))
    return goals


if __name__ == "__main__":
    for goal in run():
        print(goal.line())
