"""Runs whose workers died at awkward moments end anyway; stopped runs keep what they showed."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from policyeditor.review import impact_reader, impact_runs, impact_tasks, workflow
from policyeditor.review.models import ImpactChunk, ImpactResult, ImpactRun
from tests.engine.impact.helpers import deployment, kubectl_json
from tests.review.impact_worker import work

pytestmark = pytest.mark.django_db


@pytest.fixture
def draft(bound_draft):
    """The sample draft with its policy bound: impact analysis ignores an unbound policy."""
    return bound_draft


@pytest.fixture(autouse=True)
def impact_dir(settings, tmp_path):
    settings.POLICYEDITOR_IMPACT_DIR = str(tmp_path / "impact")


def start(draft, alice, count: int = 5) -> ImpactRun:
    dump = kubectl_json([deployment(f"d{i}", i) for i in range(count)])
    return impact_runs.start_run(alice, draft, workflow.latest_revision(draft), dump)


def test_a_run_whose_worker_died_after_storing_the_last_chunk_is_finished_by_the_next_look(
    draft, alice
):
    run = start(draft, alice)
    work()
    # As if the worker died between storing its chunk and finishing the run.
    ImpactRun.objects.filter(pk=run.pk).update(state="running", summary={}, finished=None)
    impact_runs.requeue_stale(run)
    run.refresh_from_db()
    assert run.state == "done" and run.summary["total"] == 5


def test_a_run_queued_longer_than_a_lease_is_read_again_its_reader_may_have_died(draft, alice):
    run = start(draft, alice)
    # A worker took the reader's task and died before it claimed the run: nothing else would.
    DBTaskResult.objects.filter(task_path__endswith=".prepare_run").update(status="RUNNING")
    assert impact_runs.requeue_stale(run) == 0  # queued a moment ago: maybe only waiting
    ImpactRun.objects.filter(pk=run.pk).update(created=timezone.now() - timedelta(minutes=10))
    assert impact_runs.requeue_stale(run) == 1
    work()
    run.refresh_from_db()
    assert run.state == "done" and run.position == 5


def test_a_cancelled_run_keeps_its_rows_and_counts_when_its_reader_fails_afterwards(draft, alice):
    run = start(draft, alice)
    work()
    ImpactRun.objects.filter(pk=run.pk).update(state="running")
    impact_runs.cancel_run(alice, run)
    impact_tasks._fail(run.pk, "Cannot read the dump: late failure")
    run.refresh_from_db()
    assert run.state == "cancelled" and run.error == ""
    assert ImpactResult.objects.filter(run=run).count() == 5
    assert run.summary["total"] == 5  # counted once, when cancelled


def test_a_chunk_that_ends_after_its_run_was_cancelled_stores_nothing(draft, alice, monkeypatch):
    monkeypatch.setattr(impact_reader, "CHUNK", 2)
    run = start(draft, alice)
    impact_tasks.prepare_run.call(run.pk)  # read; the chunk tasks wait
    chunk = ImpactChunk.objects.filter(run=run).order_by("index").first()
    evaluate = impact_tasks._evaluate

    def cancelled_meanwhile(*args, **kwargs):
        rows = evaluate(*args, **kwargs)
        impact_runs.cancel_run(alice, run)  # while the chunk was evaluating
        return rows

    monkeypatch.setattr(impact_tasks, "_evaluate", cancelled_meanwhile)
    impact_tasks.run_chunk.call(chunk.pk)
    run.refresh_from_db()
    assert run.state == "cancelled" and not ImpactResult.objects.filter(run=run).exists()
    assert run.summary["total"] == 0


def _read_into_chunks(draft, alice, monkeypatch) -> tuple[ImpactRun, list[ImpactChunk]]:
    """A run read into three chunks whose tasks wait in the queue."""
    monkeypatch.setattr(impact_reader, "CHUNK", 2)
    run = start(draft, alice)
    impact_tasks.prepare_run.call(run.pk)
    chunks = list(ImpactChunk.objects.filter(run=run).order_by("index"))
    assert len(chunks) == 3 and all(chunk.state == "pending" for chunk in chunks)
    return run, chunks


def _unclaimed_for_a_lease(run: ImpactRun) -> None:
    ImpactChunk.objects.filter(run=run).update(lease_until=timezone.now() - timedelta(seconds=1))


def test_a_chunk_whose_worker_died_before_claiming_it_gets_a_new_task_once_a_lease_went_by(
    draft, alice, monkeypatch
):
    run, chunks = _read_into_chunks(draft, alice, monkeypatch)
    # A worker took the second chunk's task and died before it claimed the chunk.
    DBTaskResult.objects.filter(pk=chunks[1].task_id).update(
        status="RUNNING", started_at=timezone.now() - timedelta(minutes=10)
    )
    assert impact_runs.requeue_stale(run) == 0  # queued a moment ago
    _unclaimed_for_a_lease(run)
    assert impact_runs.requeue_stale(run) == 1  # the others' tasks are still waiting their turn
    assert ImpactChunk.objects.get(pk=chunks[1].pk).task_id != chunks[1].task_id
    work()
    run.refresh_from_db()
    assert run.state == "done" and run.position == 5
    assert ImpactResult.objects.filter(run=run).count() == 5


def test_pending_chunks_whose_tasks_wait_in_a_busy_queue_are_not_queued_twice(
    draft, alice, monkeypatch
):
    run, chunks = _read_into_chunks(draft, alice, monkeypatch)
    _unclaimed_for_a_lease(run)
    assert impact_runs.requeue_stale(run) == 0
    # Looked at again a lease later, not at every poll of the page.
    assert all(chunk.lease_until > timezone.now() for chunk in ImpactChunk.objects.filter(run=run))
    assert DBTaskResult.objects.filter(task_path__endswith=".run_chunk").count() == 3


def test_a_worker_that_took_a_chunk_task_a_moment_ago_is_given_time_to_claim_it(
    draft, alice, monkeypatch
):
    run, chunks = _read_into_chunks(draft, alice, monkeypatch)
    DBTaskResult.objects.filter(pk=chunks[0].task_id).update(
        status="RUNNING", started_at=timezone.now()
    )
    _unclaimed_for_a_lease(run)
    assert impact_runs.requeue_stale(run) == 0


@pytest.mark.parametrize("lost", ["failed", "pruned"])
def test_a_chunk_whose_task_ended_without_claiming_it_gets_a_new_task(
    draft, alice, monkeypatch, lost
):
    run, chunks = _read_into_chunks(draft, alice, monkeypatch)
    tasks = DBTaskResult.objects.filter(pk=chunks[2].task_id)
    if lost == "failed":  # say a database error before the claim
        tasks.update(status="FAILED", started_at=timezone.now(), finished_at=timezone.now())
    else:
        tasks.delete()
    _unclaimed_for_a_lease(run)
    assert impact_runs.requeue_stale(run) == 1
    tasks.delete()  # work() takes any failed task for the test's own failure
    work()
    run.refresh_from_db()
    assert run.state == "done" and run.position == 5
