"""Impact runs on the task queue: one task reads the dump into chunks, one task per chunk evaluates.

Django's Tasks API with django-tasks-db's database backend: tasks are rows, `manage.py db_worker`
processes run them, any number of workers on any number of machines share a run (PostgreSQL), and
nothing but the database is needed. A chunk task claims its chunk with a lease it renews; a worker
that dies stops renewing, and `requeue_stale` gives the chunk to a new task. No database
transaction is open while objects are evaluated: evaluation runs in the isolation pool
(engine/isolation.py) with the per-object deadline of every evaluation and a budget per chunk.
"""

from __future__ import annotations

import json
import logging
import shutil
from datetime import timedelta
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone
from django_tasks import task

from policyeditor.core.engine_gate import deadline_for
from policyeditor.editor.crds import draft_crds
from policyeditor.engine import impact
from policyeditor.engine.isolation import isolation_enabled, shared_pool
from policyeditor.review.impact_queries import summarize
from policyeditor.review.models import ImpactChunk, ImpactResult, ImpactRun, impact_storage

logger = logging.getLogger(__name__)

CHUNK = (
    1000  # objects per chunk task: a few seconds of work, so progress moves and leases stay short
)
MAX_ATTEMPTS = 3  # a chunk whose worker died this often is recorded as errors


def lease_seconds() -> float:
    """How long a chunk stays claimed without renewal (past the chunk budget: a live worker renews)."""
    return float(getattr(settings, "POLICYEDITOR_IMPACT_LEASE_SECONDS", 300))


def budget_seconds() -> float:
    """The most one chunk may evaluate for; the objects left then are recorded as errors."""
    return float(getattr(settings, "POLICYEDITOR_IMPACT_CHUNK_BUDGET_SECONDS", 240))


def chunk_dir(run_id: int) -> Path:
    """The folder of a run's chunk files (JSON lines, written once by prepare_run)."""
    return Path(impact_storage().path(f"chunks/run-{run_id}"))


def _fail(run_id: int, message: str) -> None:
    ImpactRun.objects.filter(pk=run_id).exclude(state=ImpactRun.State.CANCELLED).update(
        state=ImpactRun.State.FAILED, error=message, finished=timezone.now()
    )
    shutil.rmtree(chunk_dir(run_id), ignore_errors=True)


def _read(run: ImpactRun, chunks: list[ImpactChunk]) -> dict[str, Any]:
    """Stream the dump once into chunk files; the namespaces it holds and uses."""
    folder = chunk_dir(run.pk)
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    namespaces: dict[str, dict[str, Any]] = {}
    used: set[str] = set()
    if run.namespaces_dump:
        with run.namespaces_dump.open("rb") as handle:
            for obj in impact.iter_objects(impact.open_dump(handle)):
                namespaces.update(impact.namespaces_of([obj]))
    position = 0
    out = None
    try:
        with run.dump.open("rb") as handle:
            for obj in impact.iter_objects(impact.open_dump(handle)):
                if position % CHUNK == 0:
                    if out is not None:
                        out.close()
                        _renew_read_lease(run.pk)
                    index = position // CHUNK
                    out = open(folder / f"{index}.jsonl", "w", encoding="utf-8")  # noqa: SIM115
                    chunks.append(ImpactChunk(run=run, index=index, start=position, count=0))
                assert out is not None
                out.write(json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n")
                chunks[-1].count += 1
                position += 1
                namespaces.update(impact.namespaces_of([obj]))
                namespace = impact.identity(obj)["namespace"]
                if namespace:
                    used.add(namespace)
    finally:
        if out is not None:
            out.close()
    return {"namespaces": namespaces, "missing": sorted(used - set(namespaces)), "total": position}


def _renew_read_lease(run_id: int) -> None:
    lease = timezone.now() + timedelta(seconds=lease_seconds())
    ImpactRun.objects.filter(pk=run_id, state=ImpactRun.State.READING).update(read_lease=lease)


@task()
def prepare_run(run_id: int) -> None:
    """Read the run's dump into chunk files and queue one task per chunk."""
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
    run = ImpactRun.objects.get(pk=run_id)
    chunks: list[ImpactChunk] = []
    try:
        found = _read(run, chunks)
    except impact.DumpError as error:
        _fail(run_id, f"Cannot read the dump: {error}")
        return
    except Exception as error:  # an unexpected failure still ends the run with a reason
        logger.exception("impact run %s: reading the dump failed", run_id)
        _fail(run_id, f"Cannot read the dump: {type(error).__name__}: {error}")
        return
    if not found["total"]:
        _fail(run_id, "The dump holds no objects.")
        return
    with transaction.atomic():
        ImpactChunk.objects.bulk_create(chunks)
        ImpactRun.objects.filter(pk=run_id, state=ImpactRun.State.READING).update(
            state=ImpactRun.State.RUNNING,
            total=found["total"],
            namespaces=found["namespaces"],
            missing_namespaces=found["missing"][:1000],
        )
    for chunk in ImpactChunk.objects.filter(run_id=run_id).only("pk"):
        run_chunk.enqueue(chunk.pk)


def _claim(chunk_id: int) -> bool:
    now = timezone.now()
    return bool(
        ImpactChunk.objects.filter(pk=chunk_id, run__state=ImpactRun.State.RUNNING)
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


def _result(run_id: int, position: int, row: dict[str, Any]) -> ImpactResult:
    create, update = row["CREATE"], row["UPDATE"]
    return ImpactResult(
        run_id=run_id,
        position=position,
        api_version=row["apiVersion"][:253],
        kind=row["kind"][:253],
        namespace=row["namespace"][:253],
        name=row["name"][:253],
        create_result=create["result"],
        update_result=update["result"],
        create_before=row.get("CREATE_before", {}).get("result", ""),
        update_before=row.get("UPDATE_before", {}).get("result", ""),
        create_mutated=create["mutated"],
        update_mutated=update["mutated"],
        annotations=create["audit"] + update["audit"],
        changed=impact.changed(row),
        create_message=create["message"],
        update_message=update["message"],
    )


def chunk_objects(run_id: int, index: int) -> list[dict[str, Any]]:
    """The objects of one chunk, as read from the dump."""
    with open(chunk_dir(run_id) / f"{index}.jsonl", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def _evaluate(run: ImpactRun, chunk: ImpactChunk) -> list[dict[str, Any]] | None:
    """The chunk's rows; None when the run was cancelled meanwhile."""
    objects = chunk_objects(run.pk, chunk.index)
    if chunk.attempts > MAX_ATTEMPTS:
        job = impact.Job([], "", run.baseline.documents if run.baseline else None)
        message = f"the worker evaluating these objects stopped {MAX_ATTEMPTS} times"
        return [impact.failed_row(obj, job, message) for obj in objects]
    job = impact.Job(
        run.revision.documents,
        run.revision.kubernetes_version,
        run.baseline.documents if run.baseline else None,
        run.baseline.kubernetes_version if run.baseline else None,
        run.defaulting,
        run.namespaces,
        draft_crds(run.draft),
    )
    rows = []
    for row in impact.evaluate_stream(
        job,
        objects,
        pool=shared_pool() if isolation_enabled() else None,
        object_seconds=deadline_for(run.revision.documents),
        budget_seconds=budget_seconds(),
    ):
        rows.append(row)
        if len(rows) % impact.BATCH == 0:
            state = ImpactRun.objects.filter(pk=run.pk).values_list("state", flat=True).first()
            if state != ImpactRun.State.RUNNING:
                return None
    return rows


@task()
def run_chunk(chunk_id: int) -> None:
    """Evaluate one chunk and store its rows; the last chunk finishes the run."""
    if not _claim(chunk_id):
        return
    chunk = ImpactChunk.objects.get(pk=chunk_id)
    run = ImpactRun.objects.select_related("revision", "baseline").get(pk=chunk.run_id)
    rows = _evaluate(run, chunk)
    if rows is None:
        return
    results = [_result(run.pk, chunk.start + i, row) for i, row in enumerate(rows)]
    with transaction.atomic():
        # A retried chunk replaces what an earlier attempt may have written.
        ImpactResult.objects.filter(
            run_id=run.pk, position__gte=chunk.start, position__lt=chunk.start + chunk.count
        ).delete()
        ImpactResult.objects.bulk_create(results, batch_size=250)
        done = ImpactChunk.objects.filter(pk=chunk_id).exclude(state=ImpactChunk.State.DONE)
        if done.update(state=ImpactChunk.State.DONE):
            ImpactRun.objects.filter(pk=run.pk).update(position=F("position") + len(results))
    _finish_if_done(run.pk)
    requeue_stale(run.pk)


def _finish_if_done(run_id: int) -> None:
    if ImpactChunk.objects.filter(run_id=run_id).exclude(state=ImpactChunk.State.DONE).exists():
        return
    run = ImpactRun.objects.get(pk=run_id)
    ImpactRun.objects.filter(pk=run_id, state=ImpactRun.State.RUNNING).update(
        state=ImpactRun.State.DONE, summary=summarize(run), finished=timezone.now()
    )
    # The chunk files stay: each row's "Try it" opens its object from them.


def requeue_stale(run_id: int) -> int:
    """Queue a new task for each chunk of a running run whose lease ran out (its worker died).

    A run whose reader died while reading the dump is read again by a new task.
    """
    now = timezone.now()
    if ImpactRun.objects.filter(
        pk=run_id, state=ImpactRun.State.READING, read_lease__lt=now
    ).exists():
        prepare_run.enqueue(run_id)
        return 1
    stale = ImpactChunk.objects.filter(
        run_id=run_id,
        run__state=ImpactRun.State.RUNNING,
        state=ImpactChunk.State.RUNNING,
        lease_until__lt=now,
    ).values_list("pk", flat=True)
    count = 0
    for chunk_id in stale:
        run_chunk.enqueue(chunk_id)
        count += 1
    return count
