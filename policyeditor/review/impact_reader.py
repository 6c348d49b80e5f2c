"""Reading an impact run's dump once into chunk files, queueing each chunk's task as it is written.

The reader streams the uploaded dump (engine/impact's readers), packs its objects in batches, and
writes them into chunk files (impact_store) of CHUNK objects; prepare_run (impact_tasks) runs it and
gives it the queue of chunk tasks. When a policy has a paramKind, a first pass over the dump
collects its param objects (impact_store.write_params) before any chunk is written. It renews its
hold on the run with every chunk it writes, and a reader taking over from one that died skips the
chunks already written.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone

from policyeditor.engine import impact
from policyeditor.review.impact_store import ChunkFile, write_chunk, write_params
from policyeditor.review.models import ImpactChunk, ImpactRun

logger = logging.getLogger(__name__)

# Objects per chunk task: well under a second of work for a simple policy, so progress moves and
# leases stay short, while a chunk's fixed costs (claiming it, loading the revision, the task
# queue's own rows) stay a small share of it.
CHUNK = 2000
# Objects per call to an isolated worker: the call's pickling and the run's cancel check are paid
# per batch. A batch that misses its deadline (object deadline + 0.05 s per object) is replayed
# object by object, so bigger batches only make a runaway object a little slower to single out.
BATCH = 500
# A batch also ends past this many characters of dump text (see impact.pack_batches).
BATCH_WEIGHT = impact.BATCH_WEIGHT
# A chunk file also ends past this many bytes of packed objects (see Reader.read).
CHUNK_BYTES = 64 * 1024 * 1024


class Stopped(Exception):
    """The run stopped being this reader's while it read."""


class BadNamespaces(Exception):
    """The namespaces file cannot be read (the message says why)."""


class SplitOtherwise(Exception):
    """A reader that died had cut the dump into other chunks than this one does."""


class Reader:
    """Streams the dump once into chunk files, queueing each chunk's task as soon as it is written."""

    def __init__(self, run: ImpactRun, queue: Callable[[int], object], lease: float) -> None:
        self.run = run
        self.queue = queue  # queues a pending chunk's task, given the chunk's id
        self.lease = lease  # seconds the reader holds the run without writing another chunk
        self.namespaces: dict[str, dict[str, Any]] = {}
        self.used: set[str] = set()  # the namespaces objects name (metadata.namespace)
        self.stale: dict[int, set[str]] = {}  # per chunk index: namespaces unknown when written
        # Chunks a reader that died already wrote and queued: index -> (start, count).
        self.existing = {
            index: (start, count)
            for index, start, count in ImpactChunk.objects.filter(run=run).values_list(
                "index", "start", "count"
            )
        }
        self.total = 0  # objects read
        self.chunked = 0  # objects in chunk files (the reader holds some back, see read)

    def read(self) -> None:
        if self.run.namespaces_dump:
            self._read_namespaces()
        baseline = self.run.baseline.documents if self.run.baseline else None
        kinds = impact.param_kinds(self.run.revision.documents, baseline)
        if kinds:
            # A pass of its own before any chunk is written: a param object may stand after the
            # objects it applies to, and every chunk task must see all of them.
            write_params(self.run.pk, self._read_params(kinds))
        held: list[impact.Packed] = []  # batches read and not yet in a chunk file
        with self.run.dump.open("rb") as handle:
            for packed in impact.pack_batches(
                self._objects(handle), min(BATCH, CHUNK), BATCH_WEIGHT
            ):
                if not self.stale:
                    # The first batch is a chunk of its own at once: the other workers start on
                    # it while this one reads on (it would otherwise wait for two chunks' worth).
                    self._flush([packed])
                    continue
                held.append(packed)
                # One to two chunks' worth of objects stay held back (less when they are large):
                # once the dump ends, what is held becomes chunks of a batch each, so the run's
                # last tasks are short and end close together instead of one worker evaluating a
                # whole last chunk alone.
                while _objects_in(held) >= 2 * CHUNK or _bytes_in(held) >= CHUNK_BYTES:
                    cut = _chunk_end(held)
                    self._flush(held[:cut])
                    held = held[cut:]
        for packed in held:
            self._flush([packed])

    def _read_namespaces(self) -> None:
        """The namespaces file's Namespace objects; its failures are named as its own."""
        try:
            with self.run.namespaces_dump.open("rb") as handle:
                for obj in impact.iter_objects(impact.open_dump(handle)):
                    self.namespaces.update(impact.namespaces_of([obj]))
        except impact.DumpError as error:
            raise BadNamespaces(str(error)) from error
        except Exception as error:  # still the namespaces file's fault, not the dump's
            logger.exception("impact run %s: reading the namespaces file failed", self.run.pk)
            raise BadNamespaces(f"{type(error).__name__}: {error}") from error
        if not self.namespaces:
            raise BadNamespaces(impact.NO_NAMESPACES)

    def _read_params(self, kinds: frozenset[tuple[str, str]]) -> list[dict[str, Any]]:
        """The dump's objects of these kinds, the reader's hold on the run renewed as it reads."""
        collector = impact.ParamCollector(kinds)
        with self.run.dump.open("rb") as handle:
            for count, obj in enumerate(impact.iter_objects(impact.open_dump(handle)), 1):
                collector.add(obj)
                if count % CHUNK == 0:
                    lease = timezone.now() + timedelta(seconds=self.lease)
                    running = ImpactRun.objects.filter(
                        pk=self.run.pk, state=ImpactRun.State.READING
                    )
                    if not running.update(read_lease=lease):
                        raise Stopped
        return collector.objects

    def _objects(self, handle: Any) -> Iterator[tuple[dict[str, Any], int]]:
        """The dump's objects with their weights, counted, their Namespace objects noted."""
        for obj, weight in impact.iter_weighed(impact.open_dump(handle)):
            if obj.get("kind") == "Namespace":
                self.namespaces.update(impact.namespaces_of([obj]))
            # Not the batches' names: those add "default" for objects that name no namespace.
            self.used.add(impact.namespace_of(obj))
            self.total += 1
            yield obj, weight

    def _flush(self, batches: list[impact.Packed]) -> None:
        index = len(self.stale)
        count = _objects_in(batches)
        start, self.chunked = self.chunked, self.chunked + count
        names = {name for packed in batches for name in packed[0]}
        known = {name: self.namespaces[name] for name in sorted(names) if name in self.namespaces}
        self.stale[index] = names - known.keys()
        if index in self.existing:  # read again after the first reader died: already queued
            if self.existing[index] != (start, count):
                raise SplitOtherwise  # that reader ran another version (an upgrade in between)
            return
        write_chunk(self.run.pk, index, ChunkFile(batches, known, sorted(self.stale[index])))
        lease = timezone.now() + timedelta(seconds=self.lease)
        with transaction.atomic():
            chunk = ImpactChunk.objects.create(run=self.run, index=index, start=start, count=count)
            if not ImpactRun.objects.filter(pk=self.run.pk, state=ImpactRun.State.READING).update(
                read_lease=lease, total=self.total
            ):
                raise Stopped  # cancelled (or taken by another reader): stop reading
            self.queue(chunk.pk)


def _objects_in(batches: list[impact.Packed]) -> int:
    return sum(batch[1] for batch in batches)


def _bytes_in(batches: list[impact.Packed]) -> int:
    return sum(len(batch[2]) for batch in batches)


def _chunk_end(batches: list[impact.Packed]) -> int:
    """How many of the batches make the next chunk: CHUNK objects, or fewer when they are large.

    A chunk file is read whole, so a few big objects end a chunk early (CHUNK_BYTES).
    """
    for end in range(1, len(batches) + 1):
        if _objects_in(batches[:end]) >= CHUNK or _bytes_in(batches[:end]) >= CHUNK_BYTES:
            return end
    return len(batches)
