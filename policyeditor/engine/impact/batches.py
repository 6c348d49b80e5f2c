"""A run's Job and its objects in batches: what one call to a worker carries, packed with marshal.

A batch travels packed (`pack`: marshal bytes, which pickle copies as they are) with the
namespaces its objects are in, so the job sent with it holds only the Namespace and param objects
those objects can need (`Job.for_names`); only the worker decodes the objects.
"""

from __future__ import annotations

import marshal
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from policyeditor.engine.impact.params import ParamIndex
from policyeditor.engine.jsontypes import object_at

BATCH = 100
# A batch also ends past this many characters of dump text: a few very large objects must not
# make one batch (held whole by the reader and by a worker) hundreds of megabytes.
BATCH_WEIGHT = 4 * 1024 * 1024
# marshal's format 4 (Python 3.4 on) holds dicts, lists, strings, numbers, booleans and None: what
# a dump's objects are made of. Unlike pickle, loading it never runs code.
MARSHAL_FORMAT = 4

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
