"""Impact runs on the task queue: one task reads the dump into chunks, one task per chunk evaluates.

Django's Tasks API with django-tasks-db's database backend: tasks are rows, `manage.py db_worker`
processes run them, any number of workers on any number of machines share a run (PostgreSQL), and
nothing but the database is needed. The reader queues each chunk's task as soon as it has written
the chunk, so other workers evaluate while the dump is still being read. A chunk task claims its
chunk with a lease; a worker that dies stops holding it, and `requeue_stale` gives the chunk to a
new task. No database transaction is open while objects are evaluated: evaluation runs in the
isolation pool (engine/isolation.py) with the per-object deadline of every evaluation and a budget
per chunk.

Namespaces: a dump may hold the Namespace objects after the objects in them. A chunk is evaluated
with the namespaces read before it was written; the ones it needed and the reader had not met yet
are its `stale` names. Once the whole dump is read, a chunk evaluated without a namespace the dump
did hold is evaluated again (the reader's last transaction, or the chunk's own when it finishes
later), so every row sees every Namespace object of the dump, wherever it stood.
"""

from __future__ import annotations

import functools
import gc
import logging
import shutil
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone
from django_tasks import TaskResultStatus, task
from django_tasks.exceptions import TaskResultDoesNotExist

from policyeditor.core.engine_gate import deadline_for
from policyeditor.editor.crds import draft_crds
from policyeditor.engine import impact
from policyeditor.engine.isolation import isolation_enabled, shared_pool
from policyeditor.review.impact_queries import summarize
from policyeditor.review.impact_reader import (
    BATCH,
    BadNamespaces,
    Reader,
    SplitOtherwise,
    Stopped,
)
from policyeditor.review.impact_store import (
    ChunkFile,
    chunk_dir,
    chunk_objects,
    chunk_to_evaluate,
    insert_results,
    object_at,
    result_values,
)
from policyeditor.review.models import ImpactChunk, ImpactResult, ImpactRun

__all__ = [
    "chunk_dir",
    "chunk_objects",
    "object_at",
    "prepare_run",
    "requeue_stale",
    "run_chunk",
    "watch_later",
    "watch_run",
]

logger = logging.getLogger(__name__)

MAX_ATTEMPTS = 3  # a chunk whose worker died this often is recorded as errors


@functools.cache
def _freeze_start_up_heap() -> None:
    """Take what the worker process holds for good (Django, the engine, the schemas) out of the
    garbage collector's sight, once per process.

    A run builds and drops hundreds of thousands of containers, and each full collection they
    trigger would walk every one of those long-lived objects too. Measured over 50,000 objects
    (`bench/README.md`): 3 to 4 us of the 40 us a worker spends per object besides evaluating.
    """
    gc.collect()
    gc.freeze()


def lease_seconds() -> float:
    """How long a chunk stays claimed without renewal (past the chunk budget: a live worker renews)."""
    return float(getattr(settings, "POLICYEDITOR_IMPACT_LEASE_SECONDS", 300))


def budget_seconds() -> float:
    """The most one chunk may evaluate for; the objects left then are recorded as errors."""
    return float(getattr(settings, "POLICYEDITOR_IMPACT_CHUNK_BUDGET_SECONDS", 240))


LIVE = (ImpactRun.State.READING, ImpactRun.State.RUNNING)
ACTIVE = (ImpactRun.State.QUEUED, *LIVE)


def _fail(run_id: int, message: str) -> None:
    failed = (
        ImpactRun.objects.filter(pk=run_id)
        .exclude(state=ImpactRun.State.CANCELLED)
        .update(state=ImpactRun.State.FAILED, error=message, finished=timezone.now())
    )
    if not failed:
        return  # cancelled meanwhile: it keeps the rows it shows as partial
    # Chunks queued while the dump was read stop at their claim; what they stored goes.
    ImpactResult.objects.filter(run_id=run_id).delete()
    shutil.rmtree(chunk_dir(run_id), ignore_errors=True)


@task()
def prepare_run(run_id: int) -> None:
    """Read the run's dump into chunk files, queueing one task per chunk as it goes."""
    _freeze_start_up_heap()
    now = timezone.now()
    claimed = (
        ImpactRun.objects.filter(pk=run_id)
        .filter(
            Q(state=ImpactRun.State.QUEUED)
            | Q(state=ImpactRun.State.READING, read_lease__lt=now)  # its reader died
        )
        .update(state=ImpactRun.State.READING, read_lease=now + timedelta(seconds=lease_seconds()))
    )
    if not claimed:
        return
    reader = Reader(ImpactRun.objects.get(pk=run_id), _queue_pending, lease_seconds())
    try:
        reader.read()
    except Stopped:
        return
    except SplitOtherwise:
        # Its chunks and this reader's would overlap: rows counted twice, namespaces checked
        # against the wrong chunk. Nothing of the run can be trusted; it starts again clean.
        _fail(
            run_id,
            "The worker reading the dump stopped, and the one that took over (another version of "
            "policyeditor) cuts the dump into other chunks. Start the run again.",
        )
        return
    except BadNamespaces as error:
        _fail(run_id, f"Cannot read the namespaces file: {error}")
        return
    except impact.DumpError as error:
        _fail(run_id, f"Cannot read the dump: {error}")
        return
    except Exception as error:  # an unexpected failure still ends the run with a reason
        logger.exception("impact run %s: reading the dump failed", run_id)
        _fail(run_id, f"Cannot read the dump: {type(error).__name__}: {error}")
        return
    if not reader.total:
        _fail(run_id, "The dump holds no objects.")
        return
    found = set(reader.namespaces)
    with transaction.atomic():
        # The run's row first: a chunk finishing now waits for this transaction (see _store).
        if not ImpactRun.objects.filter(pk=run_id, state=ImpactRun.State.READING).update(
            state=ImpactRun.State.RUNNING,
            total=reader.total,
            namespaces=reader.namespaces,
            missing_namespaces=sorted(reader.used - found - {""})[:1000],
        ):
            return  # cancelled meanwhile
        redo = [index for index, names in reader.stale.items() if names & found]
        done = ImpactChunk.objects.filter(
            run_id=run_id, index__in=redo, state=ImpactChunk.State.DONE
        )
        for chunk_id, count in done.values_list("pk", "count"):
            _redo(run_id, chunk_id, count)
    _finish_if_done(run_id)


def _redo(run_id: int, chunk_id: int, count: int) -> None:
    """Queue a finished chunk again (inside the caller's transaction): it missed a namespace."""
    ImpactChunk.objects.filter(pk=chunk_id).update(state=ImpactChunk.State.PENDING, attempts=0)
    ImpactRun.objects.filter(pk=run_id).update(position=F("position") - count)
    _queue_pending(chunk_id)


def _queue_pending(chunk_id: int) -> None:
    """Queue a task for a pending chunk, noting which, and when to look at it again unclaimed."""
    task_id = run_chunk.enqueue(chunk_id).id
    look_again = timezone.now() + timedelta(seconds=lease_seconds())
    ImpactChunk.objects.filter(pk=chunk_id).update(task_id=task_id, lease_until=look_again)


def _task_under_way(task_id: str) -> bool:
    """Whether a chunk's task is still waiting in the queue, or was taken less than a lease ago."""
    if not task_id:
        return False
    try:
        result = run_chunk.get_result(task_id)
    except TaskResultDoesNotExist:  # its row was pruned
        return False
    if result.status == TaskResultStatus.READY:
        return True  # the queue is busy with other work: not lost
    started = result.started_at
    return (
        result.status == TaskResultStatus.RUNNING
        and started is not None
        and timezone.now() - started < timedelta(seconds=lease_seconds())
    )


def _claim(chunk_id: int) -> bool:
    now = timezone.now()
    return bool(
        ImpactChunk.objects.filter(pk=chunk_id, run__state__in=LIVE)
        .filter(
            Q(state=ImpactChunk.State.PENDING)
            | Q(state=ImpactChunk.State.RUNNING, lease_until__lt=now)
        )
        .update(
            state=ImpactChunk.State.RUNNING,
            lease_until=now + timedelta(seconds=lease_seconds()),
            attempts=F("attempts") + 1,
        )
    )


def _namespaces(run_id: int, chunk: ChunkFile) -> tuple[dict[str, dict[str, Any]], bool]:
    """The Namespace objects to evaluate a chunk with; True when they are the dump's final ones."""
    state, final = ImpactRun.objects.filter(pk=run_id).values_list("state", "namespaces").get()
    if state == ImpactRun.State.READING:
        return chunk.namespaces, False
    found = {name: final[name] for name in chunk.stale if name in final}
    return {**chunk.namespaces, **found}, True


def _evaluate(run: ImpactRun, chunk: ImpactChunk, data: ChunkFile) -> list[dict[str, Any]] | None:
    """The chunk's rows; None when the run was cancelled meanwhile."""
    if chunk.attempts > MAX_ATTEMPTS:
        job = impact.Job([], "", run.baseline.documents if run.baseline else None)
        message = f"the worker evaluating these objects stopped {MAX_ATTEMPTS} times"
        return [
            impact.failed_row(obj, job, message)
            for batch in data.batches
            for obj in impact.unpack(batch)
        ]
    job = impact.Job(
        run.revision.documents,
        run.revision.kubernetes_version,
        run.baseline.documents if run.baseline else None,
        run.baseline.kubernetes_version if run.baseline else None,
        run.defaulting,
        data.namespaces,
        draft_crds(run.draft),
        data.params,
    )
    rows = []
    for row in impact.evaluate_packed_stream(
        job,
        data.batches,
        pool=shared_pool() if isolation_enabled() else None,
        object_seconds=deadline_for(run.revision.documents),
        budget_seconds=budget_seconds(),
    ):
        rows.append(row)
        if len(rows) % BATCH == 0:
            state = ImpactRun.objects.filter(pk=run.pk).values_list("state", flat=True).first()
            if state not in LIVE:
                return None
    return rows


@task()
def run_chunk(chunk_id: int) -> None:
    """Evaluate one chunk and store its rows; the last chunk finishes the run."""
    _freeze_start_up_heap()
    if not _claim(chunk_id):
        return
    chunk = ImpactChunk.objects.get(pk=chunk_id)
    run = ImpactRun.objects.select_related("revision", "baseline").get(pk=chunk.run_id)
    try:
        data = chunk_to_evaluate(run, chunk.index)
    except (OSError, ValueError, EOFError, KeyError, TypeError) as error:
        # Gone, damaged, or written by a version before chunk files held packed objects: no
        # retry can read it, so the run stops with the reason instead of waiting for ever.
        _fail(
            run.pk,
            f"Cannot read the objects of chunk {chunk.index} ({error}). Start the run again.",
        )
        return
    data.namespaces, final = _namespaces(run.pk, data)
    rows = _evaluate(run, chunk, data)
    if rows is None:
        return
    values = [result_values(run.pk, chunk.start + i, row) for i, row in enumerate(rows)]
    _store(run.pk, chunk, values, [] if final else data.stale)
    _finish_if_done(run.pk)
    requeue_stale(run.pk)


def _store(run_id: int, chunk: ImpactChunk, values: list[Any], stale: list[str]) -> None:
    """Write a chunk's rows in one short transaction; queue it again if it missed a namespace."""
    with transaction.atomic():
        # The run's row first (locked until the end of the transaction, as the reader's last
        # transaction locks it first): the state read here cannot change before this commits.
        run = ImpactRun.objects.select_for_update().filter(pk=run_id)
        state, namespaces = run.values_list("state", "namespaces").get()
        if state not in LIVE:
            # Cancelled or failed while this chunk evaluated: a cancelled run's rows and summary
            # are final once it is cancelled, a failed run keeps none.
            return
        done = ImpactChunk.objects.filter(pk=chunk.pk).exclude(state=ImpactChunk.State.DONE)
        if not done.update(state=ImpactChunk.State.DONE):
            # Another attempt (this one's lease ran out meanwhile) stored the chunk first: its
            # rows stand, and the run's summary may already count them.
            return
        # A retried chunk replaces what an earlier attempt may have written.
        ImpactResult.objects.filter(
            run_id=run_id, position__gte=chunk.start, position__lt=chunk.start + chunk.count
        ).delete()
        insert_results(values)
        ImpactRun.objects.filter(pk=run_id).update(position=F("position") + len(values))
        # Read to the end after this chunk started: a namespace it lacked may have turned up.
        if state == ImpactRun.State.RUNNING and set(stale) & set(namespaces):
            _redo(run_id, chunk.pk, len(values))


def _finish_if_done(run_id: int) -> None:
    if ImpactChunk.objects.filter(run_id=run_id).exclude(state=ImpactChunk.State.DONE).exists():
        return
    if not ImpactRun.objects.filter(pk=run_id, state=ImpactRun.State.RUNNING).exists():
        return  # still reading (more chunks to come), or stopped
    run = ImpactRun.objects.get(pk=run_id)
    ImpactRun.objects.filter(pk=run_id, state=ImpactRun.State.RUNNING).update(
        state=ImpactRun.State.DONE, summary=summarize(run), finished=timezone.now()
    )
    # The chunk files stay: each row's "Try it" opens its object from them.


@task()
def watch_run(run_id: int) -> None:
    """Give what dead workers held to new tasks, then look again later while the run is live.

    The run's page and the API do the same whenever they are polled, and every finished chunk
    does it too; this is for the run nobody watches whose last chunks' worker died (a restart,
    a machine gone): it would otherwise wait, queued as running, until someone opened its page.
    """
    requeue_stale(run_id)
    if ImpactRun.objects.filter(pk=run_id, state__in=ACTIVE).exists():
        watch_later(run_id)


def watch_later(run_id: int) -> None:
    """Queue watch_run for when a lease taken now will have run out (one such task per live run)."""
    when = timezone.now() + timedelta(seconds=lease_seconds() + 1)
    watch_run.using(run_after=when).enqueue(run_id)


def requeue_stale(run_id: int) -> int:
    """Queue a new task for each chunk of a live run whose lease ran out (its worker died), or
    whose task was lost (taken by a worker that died before claiming the chunk).

    A run whose reader died while reading the dump (or, queued for longer than a lease, before
    claiming it) is read again by a new task; a run whose chunks are all stored is finished.
    """
    now = timezone.now()
    count = 0
    # A worker that died between storing the last chunk and finishing the run left it running.
    _finish_if_done(run_id)
    expired = now - timedelta(seconds=lease_seconds())
    if ImpactRun.objects.filter(
        Q(state=ImpactRun.State.READING, read_lease__lt=now)
        # Queued for longer than a lease: its reader may have died before claiming it. Another
        # reader task is harmless (the claim lets one through) if it was only waiting its turn.
        | Q(state=ImpactRun.State.QUEUED, created__lt=expired),
        pk=run_id,
    ).exists():
        prepare_run.enqueue(run_id)
        count += 1
    stale = ImpactChunk.objects.filter(
        run_id=run_id,
        run__state__in=LIVE,
        state=ImpactChunk.State.RUNNING,
        lease_until__lt=now,
    ).values_list("pk", flat=True)
    for chunk_id in stale:
        task_id = run_chunk.enqueue(chunk_id).id
        ImpactChunk.objects.filter(pk=chunk_id).update(task_id=task_id)
        count += 1
    # A chunk still pending a lease after its task was queued: the task may be waiting its turn
    # (look again a lease later), or a worker took it and died before claiming the chunk, or it
    # ended without (a database error): then only a new task evaluates it.
    unclaimed = ImpactChunk.objects.filter(
        Q(lease_until__lt=now) | Q(lease_until__isnull=True),
        run_id=run_id,
        run__state__in=LIVE,
        state=ImpactChunk.State.PENDING,
    ).values_list("pk", "task_id")
    for chunk_id, task_id in unclaimed:
        if _task_under_way(task_id):
            look_again = now + timedelta(seconds=lease_seconds())
            ImpactChunk.objects.filter(pk=chunk_id).update(lease_until=look_again)
        else:
            _queue_pending(chunk_id)
            count += 1
    return count
