"""Chunks are evaluated while the dump is still read, and still see Namespace objects read later."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from policyeditor.editor.services import save_draft
from policyeditor.engine.manifests.loading import dump_documents
from policyeditor.review import impact_reader, impact_runs, impact_tasks, workflow
from policyeditor.review.models import ImpactChunk, ImpactRun
from tests.builders import bound
from tests.builders import replica_limit as policy
from tests.engine.impact.helpers import deployment
from tests.review.impact_worker import work

pytestmark = pytest.mark.django_db


@pytest.fixture
def draft(bound_draft):
    """The sample draft with its policy bound: impact analysis ignores an unbound policy."""
    return bound_draft


@pytest.fixture(autouse=True)
def impact_dir(settings, tmp_path):
    settings.POLICYEDITOR_IMPACT_DIR = str(tmp_path / "impact")


@pytest.fixture
def prod_only(draft, alice):
    """The draft's policy applies in namespaces labelled env=prod only."""
    selective = policy(5)
    selective["spec"]["matchConstraints"]["namespaceSelector"] = {"matchLabels": {"env": "prod"}}
    draft.refresh_from_db()
    save_draft(draft, bound(selective), expected_revision=draft.revision, author=alice)
    return draft


def dump_with_namespace_last(count: int) -> str:
    """`count` Deployments denied in namespace prod, and prod's Namespace object after them all."""
    items = [deployment(f"d{i}", 9, "prod") for i in range(count)]
    items.append(
        {
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {"name": "prod", "labels": {"env": "prod"}},
        }
    )
    return dump_documents([{"apiVersion": "v1", "kind": "List", "items": items}])


def start_deployments(user, draft, count: int) -> ImpactRun:
    """A run of `count` Deployments d0, d1... through the draft's latest revision."""
    items = [deployment(f"d{i}", 1) for i in range(count)]
    dump = dump_documents([{"apiVersion": "v1", "kind": "List", "items": items}])
    return impact_runs.start_run(user, draft, workflow.latest_revision(draft), dump)


def test_a_chunk_runs_while_the_dump_is_read_and_is_evaluated_again_when_its_namespace_comes_later(
    prod_only, alice, monkeypatch, client
):
    monkeypatch.setattr(impact_reader, "CHUNK", 4)
    client.force_login(alice)
    seen, pages = [], []
    flush = impact_reader.Reader._flush

    def flush_then_evaluate(reader, batches):
        flush(reader, batches)
        if len(reader.stale) == 1:  # the first chunk: evaluate it now, in the middle of reading
            chunk = ImpactChunk.objects.get(run=reader.run, index=0)
            impact_tasks.run_chunk.call(chunk.pk)
            run = ImpactRun.objects.get(pk=reader.run.pk)
            seen.append(
                (run.state, run.position, set(run.results.values_list("create_result", flat=True)))
            )
            pages.append(client.get(run.get_absolute_url()).content.decode())

    monkeypatch.setattr(impact_reader.Reader, "_flush", flush_then_evaluate)
    run = impact_runs.start_run(
        alice, prod_only, workflow.latest_revision(prod_only), dump_with_namespace_last(10)
    )
    work()
    # Evaluated while reading, before prod's labels were known: the policy did not apply.
    assert seen == [("reading", 4, {"skip"})]
    # The first batch is a chunk of its own at once (see test_the_dumps_last_objects_...).
    assert "Reading the dump: 4 objects read, 4 evaluated" in pages[0]
    run.refresh_from_db()
    assert run.state == "done" and run.total == 11 and run.position == 11
    results = dict(run.results.values_list("name", "create_result"))
    assert results == {**{f"d{i}": "deny" for i in range(10)}, "prod": "skip"}
    assert run.summary["CREATE"]["deny"] == 10


def test_a_chunk_that_finishes_after_the_reader_met_its_namespace_is_evaluated_again(
    prod_only, alice, monkeypatch
):
    monkeypatch.setattr(impact_reader, "CHUNK", 4)
    run = impact_runs.start_run(
        alice, prod_only, workflow.latest_revision(prod_only), dump_with_namespace_last(10)
    )
    impact_tasks.prepare_run.call(run.pk)  # read to the end; the chunk tasks are queued

    def as_if_started_while_reading(run_id, chunk):
        return chunk.namespaces, False  # what a chunk claimed before the end of the dump had

    monkeypatch.setattr(impact_tasks, "_namespaces", as_if_started_while_reading)
    first = ImpactChunk.objects.get(run=run, index=0)
    impact_tasks.run_chunk.call(first.pk)
    first.refresh_from_db()
    run.refresh_from_db()
    assert first.state == "pending" and run.position == 0  # queued again, not counted
    monkeypatch.undo()
    monkeypatch.setattr(impact_reader, "CHUNK", 4)
    work()
    run.refresh_from_db()
    assert run.state == "done" and run.position == 11
    assert run.summary["CREATE"]["deny"] == 10


def test_a_cancelled_run_stops_reading_the_dump(draft, alice, monkeypatch):
    monkeypatch.setattr(impact_reader, "CHUNK", 2)
    flush = impact_reader.Reader._flush

    def flush_then_cancel(reader, batches):
        flush(reader, batches)
        impact_runs.cancel_run(alice, reader.run)

    monkeypatch.setattr(impact_reader.Reader, "_flush", flush_then_cancel)
    run = start_deployments(alice, draft, 10)
    work()
    run.refresh_from_db()
    assert run.state == "cancelled"
    assert ImpactChunk.objects.filter(run=run).count() == 1  # the second chunk was not written
    assert not run.results.exists()


def test_try_it_finds_an_object_by_its_place_in_the_dump(draft, alice, monkeypatch):
    monkeypatch.setattr(impact_reader, "CHUNK", 3)
    run = start_deployments(alice, draft, 7)
    work()
    assert [impact_tasks.object_at(run.pk, i)["metadata"]["name"] for i in range(7)] == [
        f"d{i}" for i in range(7)
    ]
    with pytest.raises(LookupError):
        impact_tasks.object_at(run.pk, 7)


def test_a_chunk_file_that_cannot_be_read_fails_the_run_with_the_reason(draft, alice):
    run = start_deployments(alice, draft, 3)
    impact_tasks.prepare_run.call(run.pk)
    (impact_tasks.chunk_dir(run.pk) / "0.chunk").write_bytes(b"not marshal data")
    work()
    run.refresh_from_db()
    assert run.state == "failed"
    assert run.error.startswith("Cannot read the objects of chunk 0 (")
    assert run.error.endswith("Start the run again.")


def test_large_objects_end_a_chunk_early_so_a_chunk_file_stays_small(draft, alice, monkeypatch):
    monkeypatch.setattr(impact_reader, "BATCH_WEIGHT", 1_000)
    monkeypatch.setattr(impact_reader, "CHUNK_BYTES", 2_000)
    items = [deployment(f"d{i}", 1) for i in range(6)]
    items[1]["metadata"]["annotations"] = {"big": "x" * 3_000}
    dump = dump_documents([{"apiVersion": "v1", "kind": "List", "items": items}])
    run = impact_runs.start_run(alice, draft, workflow.latest_revision(draft), dump)
    work()
    run.refresh_from_db()
    assert run.state == "done"
    chunks = list(ImpactChunk.objects.filter(run=run).order_by("index").values_list("count"))
    # The big object ends its batch, whose bytes end the chunk; the rest fit in one of each.
    assert chunks == [(2,), (4,)]
    assert [impact_tasks.object_at(run.pk, i)["metadata"]["name"] for i in range(6)] == [
        f"d{i}" for i in range(6)
    ]


def test_the_dumps_last_objects_are_chunks_of_a_batch_each_so_the_runs_last_tasks_are_short(
    draft, alice, monkeypatch
):
    monkeypatch.setattr(impact_reader, "CHUNK", 400)
    monkeypatch.setattr(impact_reader, "BATCH", 50)
    run = start_deployments(alice, draft, 2000)
    impact_tasks.prepare_run.call(run.pk)
    chunks = ImpactChunk.objects.filter(run=run).order_by("index")
    # The first batch went at once; then one to two chunks' worth (750) were held back until the
    # end of the dump, then split.
    assert list(chunks.values_list("count", flat=True)) == [50] + [400] * 3 + [50] * 15
    assert list(chunks.values_list("start", flat=True)) == [0, 50, 450, 850] + [
        1250 + 50 * i for i in range(15)
    ]
    work()
    run.refresh_from_db()
    assert run.state == "done" and run.position == 2000
    assert list(run.results.values_list("position", flat=True)) == list(range(2000))


_FLUSH = impact_reader.Reader._flush


class _WorkerDied(BaseException):
    """A reader's process ending mid-read: no handler of the task runs."""


def _run_whose_reader_died(user, draft, monkeypatch) -> ImpactRun:
    """A run of 2,000 objects whose reader wrote 3 chunks of 400 (batches of 50), then died."""
    monkeypatch.setattr(impact_reader, "CHUNK", 400)
    monkeypatch.setattr(impact_reader, "BATCH", 50)
    run = start_deployments(user, draft, 2000)

    def flush_then_die(reader, batches):
        _FLUSH(reader, batches)
        if len(reader.stale) == 3:
            raise _WorkerDied

    monkeypatch.setattr(impact_reader.Reader, "_flush", flush_then_die)
    with pytest.raises(_WorkerDied):
        impact_tasks.prepare_run.call(run.pk)
    assert ImpactChunk.objects.filter(run=run).count() == 3
    return run


def _take_over(run: ImpactRun, monkeypatch) -> ImpactRun:
    """The dead reader's lease runs out; a new reader reads the dump again, workers evaluate."""
    monkeypatch.setattr(impact_reader.Reader, "_flush", _FLUSH)
    ImpactRun.objects.filter(pk=run.pk).update(read_lease=timezone.now() - timedelta(seconds=1))
    assert impact_runs.requeue_stale(run) >= 1
    work()
    run.refresh_from_db()
    return run


def test_a_reader_taking_over_from_a_dead_one_writes_only_the_chunks_it_had_not(
    draft, alice, monkeypatch
):
    run = _take_over(_run_whose_reader_died(alice, draft, monkeypatch), monkeypatch)
    assert run.state == "done" and run.total == run.position == 2000
    assert list(run.results.values_list("position", flat=True)) == list(range(2000))


def test_a_reader_that_cuts_the_dump_otherwise_than_the_dead_one_fails_the_run_clearly(
    draft, alice, monkeypatch
):
    run = _run_whose_reader_died(alice, draft, monkeypatch)
    monkeypatch.setattr(impact_reader, "CHUNK", 300)  # a new version, with other chunks
    run = _take_over(run, monkeypatch)
    assert run.state == "failed" and "cuts the dump into other chunks" in run.error
    assert not run.results.exists()


def test_an_attempt_that_ends_after_its_chunk_was_stored_leaves_the_rows_as_they_are(draft, alice):
    run = start_deployments(alice, draft, 3)
    work()
    run.refresh_from_db()
    chunk = ImpactChunk.objects.get(run=run)
    before = list(run.results.values_list("position", "create_result"))
    late = [
        (run.pk, i, "v1", "ConfigMap", "", f"late-{i}", "error", "error", "", "")
        + (False, False, 0, False, "", "")
        for i in range(3)
    ]
    impact_tasks._store(run.pk, chunk, late, [])
    run.refresh_from_db()
    assert list(run.results.values_list("position", "create_result")) == before
    assert run.position == 3
