"""A run's objects through evaluation in batches, in isolated workers, runaway objects as errors.

A batch of objects goes to one worker of the isolation pool (engine/isolation.py) in one call, so
the pipe and pickling cost is paid per batch, not per object; it travels packed (batches.pack) and
only the worker decodes it. A batch that misses its deadline (some object makes a policy run away)
is replayed object by object, each under the per-object deadline every other evaluation has: the
runaway objects become `error` rows and the others their outcome.
"""

from __future__ import annotations

import contextlib
import time
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from policyeditor.engine.errors import MemoryExhausted
from policyeditor.engine.impact.batches import BATCH, Job, Packed, pack_batches, unpack
from policyeditor.engine.impact.evaluate import (
    OPERATIONS,
    Row,
    evaluate_batch,
    evaluate_packed,
    failed_row,
)
from policyeditor.engine.isolation import (
    DEFAULT_TIMEOUT,
    IsolationError,
    Pending,
    WorkerPool,
    memory_message,
)

# A batch's deadline: one object's, plus this much per object (about 20 times an object's usual
# cost with a baseline), so a batch whose objects are all legitimate never misses it.
BATCH_SECONDS_PER_OBJECT = 0.05


def _sides_apart(pool: WorkerPool, job: Job, obj: dict[str, Any], seconds: float) -> Row:
    """One object's row from the revision and the baseline evaluated in separate calls; a side
    that runs past the deadline is a not-allowed error (fail closed), the other keeps its outcome."""
    assert job.baseline is not None
    revision = Job(
        job.documents, job.version, None, None, job.defaulting, job.namespaces, job.crds, job.params
    )
    baseline = Job(
        job.baseline,
        job.baseline_version or job.version,
        None,
        None,
        job.defaulting,
        job.namespaces,
        job.crds,
        job.params,
    )
    sides = []
    for side in (revision, baseline):
        try:
            rows: list[Row] = pool.call(evaluate_batch, side, [obj], timeout=seconds)
            sides.append(rows[0])
        except IsolationError as error:
            sides.append(failed_row(obj, side, error.message))
    row, before = sides
    for operation in OPERATIONS:
        row[f"{operation}_before"] = before[operation]
    return row


@dataclass
class _Batch:
    packed: Packed
    pending: Pending | None


def evaluate_stream(
    job: Job,
    objects: Iterable[dict[str, Any]],
    *,
    pool: WorkerPool | None,
    parallel: int = 1,
    batch: int = BATCH,
    object_seconds: float = DEFAULT_TIMEOUT,
    budget_seconds: float | None = None,
) -> Iterator[Row]:
    """Rows of every object, in order; `parallel` batches in flight in `pool` (None: in-process).

    An object that runs past `object_seconds` becomes an `error` row; once `budget_seconds` have
    passed, every remaining object does too (a chunk cannot hold its worker for ever).
    """
    return evaluate_packed_stream(
        job,
        pack_batches(((obj, 0) for obj in objects), batch),
        pool=pool,
        parallel=parallel,
        object_seconds=object_seconds,
        budget_seconds=budget_seconds,
    )


def evaluate_packed_stream(
    job: Job,
    batches: Iterable[Packed],
    *,
    pool: WorkerPool | None,
    parallel: int = 1,
    object_seconds: float = DEFAULT_TIMEOUT,
    budget_seconds: float | None = None,
) -> Iterator[Row]:
    """evaluate_stream on batches already packed (a chunk file's): only the workers decode them."""
    start = time.monotonic()
    in_flight: deque[_Batch] = deque()

    def over_budget() -> bool:
        return budget_seconds is not None and time.monotonic() - start > budget_seconds

    def send(packed: Packed) -> _Batch:
        if pool is None or over_budget():
            return _Batch(packed, None)
        deadline = object_seconds + BATCH_SECONDS_PER_OBJECT * packed[1]
        try:
            return _Batch(
                packed,
                pool.submit(evaluate_packed, job.for_names(packed[0]), packed, timeout=deadline),
            )
        except IsolationError:
            return _Batch(packed, None)  # replayed one by one when collected

    def collect(item: _Batch) -> list[Row]:
        if pool is None:
            try:
                return evaluate_batch(job.for_names(item.packed[0]), unpack(item.packed))
            except MemoryExhausted:
                # In-process (POLICYEDITOR_ISOLATION=off) the stop must not end the task: find
                # the object that ran out of memory as a worker's stop is found, one by one.
                return [in_process(obj) for obj in unpack(item.packed)]
        if item.pending is not None:
            try:
                rows: list[Row] = item.pending.result()
                return rows
            except IsolationError:
                pass  # some object ran away: find which, one by one
        return [single(obj) for obj in unpack(item.packed)]

    def in_process(obj: dict[str, Any]) -> Row:
        try:
            return evaluate_batch(job.for_objects([obj]), [obj])[0]
        except MemoryExhausted:
            return failed_row(obj, job, memory_message())

    def out_of_time() -> str:
        return f"the run's time budget of {budget_seconds:g}s per chunk ran out"

    def single(obj: dict[str, Any]) -> Row:
        assert pool is not None
        if over_budget():
            return failed_row(obj, job, out_of_time())
        alone = job.for_objects([obj])
        try:
            rows: list[Row] = pool.call(evaluate_batch, alone, [obj], timeout=object_seconds)
            return rows[0]
        except IsolationError as error:
            if job.baseline is None or job.baseline_is_revision():
                return failed_row(obj, job, error.message)
            if over_budget():
                return failed_row(obj, job, out_of_time())
        # With a baseline, which side ran away decides whether the revision is what changed: each
        # is evaluated on its own, under the same deadline.
        return _sides_apart(pool, alone, obj, object_seconds)

    try:
        for packed in batches:
            in_flight.append(send(packed))
            if len(in_flight) >= max(1, parallel):
                yield from collect(in_flight.popleft())
        while in_flight:
            yield from collect(in_flight.popleft())
    finally:
        # An abandoned stream still collects what it sent, so every worker goes back to the pool.
        for item in in_flight:
            if item.pending is not None:
                with contextlib.suppress(Exception):  # the rows are unwanted anyway
                    item.pending.result()
