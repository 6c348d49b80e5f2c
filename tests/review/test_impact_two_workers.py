"""Two `manage.py db_worker` processes share one run (SQLite here; PostgreSQL in CI's second pass)."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django_tasks_db.models import DBTaskResult

from policyeditor.engine.manifests.loading import dump_documents
from policyeditor.review import impact_runs, workflow
from policyeditor.review.models import ImpactChunk, ImpactResult
from tests.engine.impact.helpers import deployment
from tests.review.impact_worker import test_database_url

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def draft(bound_draft):
    """The sample draft with its policy bound: impact analysis ignores an unbound policy."""
    return bound_draft


ROOT = Path(__file__).resolve().parents[2]


def start_worker(env: dict[str, str]) -> subprocess.Popen:
    """A long-running worker, returned once it polls for tasks."""
    worker = subprocess.Popen(
        [sys.executable, "manage.py", "db_worker", "--no-reload", "--no-startup-delay"]
        + ["--interval", "0.1", "--verbosity", "1"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,  # where the project's logging sends "Starting worker"
        text=True,
    )
    deadline = time.monotonic() + 60
    assert worker.stdout is not None
    while time.monotonic() < deadline:
        ready = select.select([worker.stdout], [], [], 1)[0]
        if ready and "Starting worker" in worker.stdout.readline():
            return worker
    worker.kill()
    raise AssertionError("the worker did not start")


def test_two_workers_share_the_chunks_of_one_run_and_every_object_gets_one_row(
    draft, alice, settings, tmp_path
):
    settings.POLICYEDITOR_IMPACT_DIR = str(tmp_path / "impact")
    env = {
        **os.environ,
        "DATABASE_URL": test_database_url(),
        "POLICYEDITOR_IMPACT_DIR": settings.POLICYEDITOR_IMPACT_DIR,
        "DEBUG": "1",
        "PYTHONPATH": str(ROOT),
    }
    workers = [start_worker(env), start_worker(env)]
    try:
        items = [deployment(f"d{i}", i % 8, f"team-{i % 3}") for i in range(7000)]
        dump = dump_documents([{"apiVersion": "v1", "kind": "List", "items": items}])
        run = impact_runs.start_run(alice, draft, workflow.latest_revision(draft), dump)
        deadline = time.monotonic() + 300
        while not run.done and time.monotonic() < deadline:
            time.sleep(0.2)
            run.refresh_from_db()
    finally:
        for worker in workers:
            worker.terminate()
        for worker in workers:
            worker.wait(timeout=30)
    assert run.state == "done", (run.state, run.error)
    assert run.total == run.position == ImpactResult.objects.filter(run=run).count() == 7000
    assert run.summary["CREATE"]["deny"] == sum(1 for i in range(7000) if i % 8 > 5)
    chunks = ImpactChunk.objects.filter(run=run).order_by("index")
    # The first batch at once, chunks of 2,000, then the 2,500 objects held back until the end
    # in chunks of a batch.
    assert list(chunks.values_list("count", flat=True)) == [500, 2000, 2000] + [500] * 5
    chunk_ids = set(chunks.values_list("pk", flat=True))
    tasks = DBTaskResult.objects.filter(task_path__endswith="run_chunk")
    ran = [task.worker_ids for task in tasks if task.args_kwargs["args"][0] in chunk_ids]
    assert len(ran) == 8 and all(len(ids) == 1 for ids in ran)  # each chunk ran once
    assert len({ids[0] for ids in ran}) == 2  # and both workers took some
