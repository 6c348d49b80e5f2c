"""Each object of a dump through admission on CREATE and UPDATE, in batches, in isolated workers.

A batch of objects goes to one worker of the isolation pool (engine/isolation.py) in one call, so
the pipe and pickling cost is paid per batch, not per object; it travels packed (`pack`: marshal
bytes, which pickle copies as they are) and only the worker decodes it. A batch that misses its deadline (some
object makes a policy run away) is replayed object by object, each under the per-object deadline
every other evaluation has: the runaway objects become `error` rows and the others their outcome.
"""

from __future__ import annotations

import contextlib
import marshal
import time
from collections import deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from policyeditor.engine import admission, schemas
from policyeditor.engine.admission.inputs import mock_authorizer
from policyeditor.engine.errors import MemoryExhausted
from policyeditor.engine.impact.cluster import kind_scope_known, namespace_for
from policyeditor.engine.impact.params import ParamIndex, without_drafted
from policyeditor.engine.isolation import (
    DEFAULT_TIMEOUT,
    IsolationError,
    Pending,
    WorkerPool,
    memory_message,
)
from policyeditor.engine.jsontypes import object_at

OPERATIONS = ("CREATE", "UPDATE")
RESULTS = ("allow", "deny", "warn", "audit", "skip", "error")
BATCH = 100
# A batch also ends past this many characters of dump text: a few very large objects must not
# make one batch (held whole by the reader and by a worker) hundreds of megabytes.
BATCH_WEIGHT = 4 * 1024 * 1024
# A batch's deadline: one object's, plus this much per object (about 20 times an object's usual
# cost with a baseline), so a batch whose objects are all legitimate never misses it.
BATCH_SECONDS_PER_OBJECT = 0.05
MESSAGE_CHARS = 500
# marshal's format 4 (Python 3.4 on) holds dicts, lists, strings, numbers, booleans and None: what
# a dump's objects are made of. Unlike pickle, loading it never runs code.
MARSHAL_FORMAT = 4

_NAMESPACE_KIND = {"group": "", "version": "v1", "kind": "Namespace"}

Row = dict[str, Any]
# A batch as it travels: the namespaces its objects are in, how many there are, them packed.
Packed = tuple[list[str], int, bytes]


def pack(objects: list[dict[str, Any]]) -> Packed:
    """A batch packed for a worker or a chunk file, with the namespaces its objects are in."""
    names = sorted({namespace_needed(obj) for obj in objects})
    return names, len(objects), marshal.dumps(objects, MARSHAL_FORMAT)


def unpack(batch: Packed) -> list[dict[str, Any]]:
    """The objects of a packed batch."""
    objects: list[dict[str, Any]] = marshal.loads(batch[2])
    return objects


@dataclass
class Job:
    """What every object of a run is evaluated against: the revision, and the baseline if any."""

    documents: list[dict[str, Any]]
    version: str
    baseline: list[dict[str, Any]] | None = None
    baseline_version: str | None = None
    defaulting: bool = True
    namespaces: dict[str, dict[str, Any]] = field(default_factory=dict)
    # CustomResourceDefinitions in force (the draft's schema library): they type, prune and
    # validate the dump's custom resources, as they do in Try it.
    crds: list[dict[str, Any]] = field(default_factory=list)
    # The dump's param objects (impact/params.py): all of them in the run's job, a batch's share
    # in the job sent with it.
    params: list[dict[str, Any]] = field(default_factory=list)
    _index: ParamIndex | None = field(default=None, init=False, repr=False, compare=False)

    def baseline_is_revision(self) -> bool:
        """Whether the baseline is the revision itself (same documents, same version)."""
        return self.baseline == self.documents and (
            (self.baseline_version or self.version) == self.version
        )

    def for_objects(self, objects: list[dict[str, Any]]) -> Job:
        """This job with only the namespaces these objects are in (what a batch sends)."""
        return self.for_names({namespace_needed(obj) for obj in objects})

    def for_names(self, names: Iterable[str]) -> Job:
        """This job with only these namespaces, and the param objects objects in them can need."""
        names = set(names)
        wanted = {name: self.namespaces[name] for name in names if name in self.namespaces}
        if self.params and self._index is None:
            self._index = ParamIndex(self.params, self.documents, self.baseline)
        return Job(
            self.documents,
            self.version,
            self.baseline,
            self.baseline_version,
            self.defaulting,
            wanted,
            self.crds,
            self._index.for_names(names) if self._index is not None else [],
        )


def namespace_of(obj: dict[str, Any]) -> str:
    """An object's namespace ("" where it has none): what `pack` notes of every object read."""
    namespace = object_at(obj, "metadata").get("namespace")
    return namespace if isinstance(namespace, str) else ""


def namespace_needed(obj: dict[str, Any]) -> str:
    """The Namespace admission may read for `obj`: its own, or "default", where a namespaced
    object without metadata.namespace is sent (cluster-scoped ones need none, but which kinds are
    is only known in the worker; one Namespace more costs nothing)."""
    return namespace_of(obj) or "default"


def identity(obj: dict[str, Any]) -> dict[str, str]:
    """Kind, namespace and name of an object ("" where it has none)."""
    metadata = object_at(obj, "metadata")
    namespace, name = metadata.get("namespace"), metadata.get("name")
    kind, api_version = obj.get("kind"), obj.get("apiVersion")
    return {
        "apiVersion": api_version if isinstance(api_version, str) else "",
        "kind": kind if isinstance(kind, str) else "",
        "namespace": namespace if isinstance(namespace, str) else "",
        "name": name if isinstance(name, str) else "",
    }


def outcome(
    result: str, *, allowed: bool, message: str = "", mutated: bool = False, audit: int = 0
) -> dict[str, Any]:
    """One operation's outcome as stored and reported."""
    # `allowed` apart from `result`: an error rejects the request under failurePolicy Fail and
    # lets it through under Ignore, as the API server answers.
    return {
        "result": result,
        "allowed": allowed,
        "message": message[:MESSAGE_CHARS],
        "mutated": mutated,
        "audit": audit,
    }


def evaluate_object(
    documents: list[dict[str, Any]],
    obj: dict[str, Any],
    operation: str,
    *,
    version: str,
    namespaces: Mapping[str, dict[str, Any]],
    defaulting: bool = True,
    resources: Sequence[dict[str, Any]] = (),
    scope_known: bool = True,
) -> dict[str, Any]:
    """One object through admission as the cluster would answer; failures become an `error`."""
    # `namespaces`: the input's Namespace objects by name (those it holds; others stand in bare).
    # `scope_known`: False for a kind no schema or CRD in force describes. kubectl prints
    # metadata.namespace for every namespaced object of a dump, so then the object's own
    # namespace, or none, says where it lives (a cluster-scoped custom resource is not in
    # "default", where the request builder would put an object of an unknown kind).
    overrides = None if scope_known else {"namespace": namespace_of(obj)}
    try:
        if operation == "CREATE":
            request = admission.AdmissionRequest.build(
                object=obj, overrides=overrides, version=version
            )
        else:
            request = admission.AdmissionRequest.build(
                object=obj, old_object=obj, overrides=overrides, version=version
            )
        # A Namespace's own request reads no namespace (policy_dispatcher.go unsets it), though
        # its request names one: the namespace itself.
        where = "" if request.kind == _NAMESPACE_KIND else request.namespace
        result = admission.evaluate(
            documents,
            request,
            version=version,
            namespace_object=namespace_for(documents, where, namespaces.get(where)),
            # Bound for every validation and mutation (cel/library authz): with no rules, the
            # authorizer `policyeditor eval` binds by default, so both agree on an object.
            authorizer=mock_authorizer([]),
            defaulting=defaulting,
            resources=resources,
            # The cluster ignores a policy no binding references (policy_dispatcher.go).
            bound_only=True,
        )
    except Exception as error:  # noqa: BLE001 - one odd object must not stop the run
        # Fail closed: nothing shows the API server would have admitted the request.
        return outcome("error", allowed=False, message=f"{type(error).__name__}: {error}")
    message = result.message or "; ".join(result.warnings)
    # The patch runs from the object as admission saw it (defaulted) to the result, so the
    # fields defaulting filled in do not count as a mutation.
    mutated = result.object is not None and bool(result.patch)
    return outcome(
        result.result,
        allowed=result.allowed,
        message=message,
        mutated=mutated,
        audit=len(result.audit_annotations),
    )


def evaluate_batch(job: Job, objects: list[dict[str, Any]]) -> list[Row]:
    """Rows for `objects`: identity, and per operation the outcome (and the baseline's).

    Module-level and Django-free: this is what an isolated worker runs.
    """
    with schemas.crds_in_force(job.crds):
        return _evaluate_batch(job, objects)


def evaluate_packed(job: Job, batch: Packed) -> list[Row]:
    """evaluate_batch on a packed batch: what an isolated worker runs (it decodes the objects)."""
    return evaluate_batch(job, unpack(batch))


def _evaluate_batch(job: Job, objects: list[dict[str, Any]]) -> list[Row]:
    # An identical baseline gives identical outcomes: do not evaluate everything twice.
    same = job.baseline_is_revision()
    params = without_drafted(job.params, job.documents)
    params_before = without_drafted(job.params, job.baseline) if job.baseline is not None else []
    rows = []
    known: dict[tuple[str, str], bool] = {}  # per apiVersion and kind: kind_scope_known
    for obj in objects:
        row: Row = identity(obj)
        kind = (row["apiVersion"], row["kind"])
        if kind not in known:
            known[kind] = kind_scope_known(obj, job.version)
        for operation in OPERATIONS:
            row[operation] = evaluate_object(
                job.documents,
                obj,
                operation,
                version=job.version,
                namespaces=job.namespaces,
                defaulting=job.defaulting,
                resources=params,
                scope_known=known[kind],
            )
            if job.baseline is not None and same:
                row[f"{operation}_before"] = dict(row[operation])
            elif job.baseline is not None:
                row[f"{operation}_before"] = evaluate_object(
                    job.baseline,
                    obj,
                    operation,
                    version=job.baseline_version or job.version,
                    namespaces=job.namespaces,
                    defaulting=job.defaulting,
                    resources=params_before,
                    scope_known=known[kind],
                )
        rows.append(row)
    return rows


def failed_row(obj: dict[str, Any], job: Job, message: str) -> Row:
    """The row of an object whose evaluation was stopped: a not-allowed error for every operation.

    Not allowed whatever the failurePolicy: the policies the stopped one kept from running may
    have denied the request (failurePolicy Ignore admits an error, never a denial).
    """
    row: Row = identity(obj)
    for operation in OPERATIONS:
        row[operation] = outcome("error", allowed=False, message=message)
        if job.baseline is not None:
            row[f"{operation}_before"] = outcome("error", allowed=False, message=message)
    return row


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


def pack_batches(
    weighed: Iterable[tuple[dict[str, Any], int]], size: int, weight: int = BATCH_WEIGHT
) -> Iterator[Packed]:
    """Objects with their weights (dump.iter_weighed) packed in batches of at most `size`
    objects, each ending once it weighs `weight` or more."""
    batch: list[dict[str, Any]] = []
    total = 0
    for obj, obj_weight in weighed:
        batch.append(obj)
        total += obj_weight
        if len(batch) >= size or total >= weight:
            yield pack(batch)
            batch, total = [], 0
    if batch:
        yield pack(batch)


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
