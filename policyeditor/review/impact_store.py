"""Where an impact run's pieces live: chunk files of packed objects, and result rows inserted in bulk.

A chunk file holds a chunk's objects already read, cleaned and packed in batches (engine/impact's
`pack`: marshal, which loads in a few microseconds per object and never runs code), with the
Namespace objects its objects need as far as the reader knew them when it wrote the file, and the
namespaces it did not know yet (`stale`). A chunk task sends the packed batches to the isolated
workers as they are: only the workers decode the objects. A run's param objects (the dump's
objects of a paramKind of its policies) are one file beside its chunk files, written before the
first of them.
"""

from __future__ import annotations

import marshal
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.db import connection

from policyeditor.editor import try_store
from policyeditor.engine import impact
from policyeditor.engine.impact.batches import MARSHAL_FORMAT
from policyeditor.engine.manifests.loading import dump_documents
from policyeditor.review.models import ImpactChunk, ImpactResult, ImpactRun, impact_storage

# ImpactResult's columns as a chunk inserts them, in the order `result_values` gives.
RESULT_FIELDS = (
    "run",
    "position",
    "api_version",
    "kind",
    "namespace",
    "name",
    "create_result",
    "update_result",
    "create_before",
    "update_before",
    "create_allowed",
    "update_allowed",
    "create_before_allowed",
    "update_before_allowed",
    "create_mutated",
    "update_mutated",
    "annotations",
    "changed",
    "create_message",
    "update_message",
)


@dataclass
class ChunkFile:
    """What a chunk file holds."""

    batches: list[impact.Packed]
    namespaces: dict[str, dict[str, Any]] = field(default_factory=dict)
    stale: list[str] = field(default_factory=list)
    # The run's param objects (not in the chunk file: in the run's own, see run_params).
    params: list[dict[str, Any]] = field(default_factory=list)


def chunk_dir(run_id: int) -> Path:
    """The folder of a run's chunk files (written once each by prepare_run)."""
    return Path(impact_storage().path(f"chunks/run-{run_id}"))


def chunk_path(run_id: int, index: int) -> Path:
    """The file of one chunk."""
    return chunk_dir(run_id) / f"{index}.chunk"


def write_chunk(run_id: int, index: int, chunk: ChunkFile) -> None:
    """Write a chunk file whole or not at all (a reader that dies leaves no half file behind)."""
    path = chunk_path(run_id, index)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {"batches": chunk.batches, "namespaces": chunk.namespaces, "stale": chunk.stale}
    partial = path.with_suffix(".partial")
    with open(partial, "wb") as out:
        marshal.dump(data, out, MARSHAL_FORMAT)
    os.replace(partial, path)


def read_chunk(run_id: int, index: int) -> ChunkFile:
    """A chunk file as written; the objects stay packed."""
    with open(chunk_path(run_id, index), "rb") as handle:
        data = marshal.load(handle)
    return ChunkFile([tuple(batch) for batch in data["batches"]], data["namespaces"], data["stale"])


def params_path(run_id: int) -> Path:
    """The file of a run's param objects (written by the reader before any chunk file)."""
    return chunk_dir(run_id) / "params"


def write_params(run_id: int, params: list[dict[str, Any]]) -> None:
    """Write the dump's param objects whole or not at all, for every chunk task to read."""
    path = params_path(run_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    with open(partial, "wb") as out:
        marshal.dump(params, out, MARSHAL_FORMAT)
    os.replace(partial, path)


def run_params(run: ImpactRun) -> list[dict[str, Any]]:
    """The dump's param objects a run's chunks are evaluated with ([] when no policy of the run
    has a paramKind); OSError when the reader has not stored them (a run read before they were)."""
    baseline = run.baseline.documents if run.baseline else None
    if not impact.param_kinds(run.revision.documents, baseline):
        return []
    with open(params_path(run.pk), "rb") as handle:
        params: list[dict[str, Any]] = marshal.load(handle)
    return params


def chunk_to_evaluate(run: ImpactRun, index: int) -> ChunkFile:
    """A chunk file as written, with the run's param objects."""
    chunk = read_chunk(run.pk, index)
    chunk.params = run_params(run)
    return chunk


def chunk_objects(run_id: int, index: int) -> list[dict[str, Any]]:
    """The objects of one chunk, as read from the dump."""
    return [obj for batch in read_chunk(run_id, index).batches for obj in impact.unpack(batch)]


def _chunk_at(run_id: int, position: int) -> tuple[ChunkFile, dict[str, Any]]:
    """The chunk file holding this place of the run's dump, and the object there."""
    chunk = (
        ImpactChunk.objects.filter(run_id=run_id, start__lte=position)
        .order_by("-start")
        .values_list("index", "start", "count")
        .first()
    )
    if chunk is None or position >= chunk[1] + chunk[2]:
        raise LookupError(position)
    data = read_chunk(run_id, chunk[0])
    objects = [obj for batch in data.batches for obj in impact.unpack(batch)]
    return data, objects[position - chunk[1]]


def object_at(run_id: int, position: int) -> dict[str, Any]:
    """The object at this place of the run's dump; LookupError when the run holds none there."""
    return _chunk_at(run_id, position)[1]


def try_inputs(run: ImpactRun, position: int, operation: str = "CREATE") -> dict[str, str]:
    """The editor's Try-it inputs that evaluate one row's object as the run did.

    The run's Namespace object for the object's namespace (none: the bare namespace the run
    stood in too), its defaulting setting, on UPDATE the object as its own oldObject, and every
    other input as the run had it: no params of its own, user, groups, subresource or dryRun
    (inputs kept from earlier tries would change the outcome). The dump's param objects are not
    carried: Try it's params input is one object that replaces every binding's paramRef, which
    is not how the run found them (a selector may have chosen several, or none).
    """
    data, obj = _chunk_at(run.pk, position)
    name = impact.namespace_of(obj)
    # The dump's final Namespace objects once it was read; the chunk's own while it is read.
    found = ((run.namespaces or {}).get(name) or data.namespaces.get(name)) if name else None
    # With the draft's Namespace of that name applied over it, as the run saw it.
    namespace = impact.namespace_for(run.revision.documents, name, found) if found else None
    text = dump_documents([obj])
    return {
        **{field: "" for field in (*try_store.TEXT_FIELDS, *try_store.CHECK_FIELDS)},
        "try_object": text,
        "try_old_object": text if operation == "UPDATE" else "",
        "try_operation": operation,
        "try_namespace_object": dump_documents([namespace]) if namespace else "",
        "try_no_defaulting": "" if run.defaulting else "on",
    }


def result_values(run_id: int, position: int, row: dict[str, Any]) -> tuple[Any, ...]:
    """One object's row as the values of RESULT_FIELDS."""
    create, update = row["CREATE"], row["UPDATE"]
    # No baseline: no outcome before, its result "" and its answer NULL.
    create_before, update_before = row.get("CREATE_before", {}), row.get("UPDATE_before", {})
    return (
        run_id,
        position,
        row["apiVersion"][:253],
        row["kind"][:253],
        row["namespace"][:253],
        row["name"][:253],
        create["result"],
        update["result"],
        create_before.get("result", ""),
        update_before.get("result", ""),
        create["allowed"],
        update["allowed"],
        create_before.get("allowed"),
        update_before.get("allowed"),
        create["mutated"],
        update["mutated"],
        create["audit"] + update["audit"],
        impact.changed(row),
        create["message"],
        update["message"],
    )


def insert_results(values: list[tuple[Any, ...]]) -> None:
    """Insert result rows in one executemany: a thousand model instances and bulk_create's
    per-field SQL compilation cost a chunk more than evaluating its objects."""
    meta = ImpactResult._meta
    quote = connection.ops.quote_name
    by_name = {field.name: str(field.column) for field in meta.concrete_fields}
    columns = ", ".join(quote(by_name[name]) for name in RESULT_FIELDS)
    placeholders = ", ".join(["%s"] * len(RESULT_FIELDS))
    sql = f"INSERT INTO {quote(meta.db_table)} ({columns}) VALUES ({placeholders})"  # noqa: S608
    with connection.cursor() as cursor:
        cursor.executemany(sql, values)
