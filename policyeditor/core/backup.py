"""Back up and restore the whole database (drafts, revisions, users, teams, review data) as JSON.

The file is one JSON object: {"format": "policyeditor-backup", "version": 1, "created": ...,
"counts": {"editor.draft": 3, ...}, "objects": [...]}, where "objects" is Django's JSON
serialization of every row. Primary keys are kept (draft URLs and revision numbers stay valid);
content types and permissions are written by natural key, since `migrate` recreates them with
ids of its own. Sessions and login-throttling records are not backed up: they are transient.

A restore is one transaction: the file is read and checked first, then (with replace=True) the
backed-up tables are emptied and every row is loaded; any failure rolls everything back, so the
database is either entirely the backup's or left exactly as it was.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, time
from pathlib import Path
from typing import Any

from django.apps import apps
from django.core import serializers
from django.core.exceptions import FieldDoesNotExist, ObjectDoesNotExist, ValidationError
from django.core.management.color import no_style
from django.core.serializers.base import DeserializationError
from django.core.serializers.json import DjangoJSONEncoder
from django.db import DEFAULT_DB_ALIAS, DatabaseError, IntegrityError, connections, transaction
from django.db.models import Model, QuerySet

BACKUP_FORMAT = "policyeditor-backup"
FORMAT_VERSION = 1
# Apps whose rows make up the instance's data; the order does not matter (see sorted_models).
APPS = ("auth", "admin", "teams", "editor", "review", "api", "core")
# Rebuilt by `migrate` (natural keys point at them) or transient.
SKIPPED = {"auth.permission"}
# Models that moved to another app on the same table: a backup written before the move names
# them by their old label (teams moved out of the review app in review 0005 / teams 0001).
MOVED = {"review.team": "teams.team", "review.membership": "teams.membership"}


class BackupError(Exception):
    """A backup file that cannot be restored, or a restore that would overwrite data; says why."""


def label(model: type[Model]) -> str:
    """`app_label.modelname`, as Django's serialization names a model."""
    return model._meta.label_lower


def sorted_models() -> list[type[Model]]:
    """Every backed-up model, each after the models its foreign keys point to."""
    pairs = []
    for app_label in APPS:
        try:
            config = apps.get_app_config(app_label)
        except LookupError:
            continue
        models = [m for m in config.get_models() if label(m) not in SKIPPED]
        pairs.append((config, models))
    ordered = serializers.sort_dependencies(pairs, allow_cycles=True)
    return [model for model in ordered if model._meta.managed and not model._meta.proxy]


def _rows(model: type[Model]) -> QuerySet:
    # _base_manager: no custom manager may hide rows from a backup.
    return model._base_manager.order_by("pk")


@contextmanager
def _snapshot(using: str) -> Iterator[None]:
    """One read transaction, so every table is read as of one instant while others write.

    PostgreSQL: REPEATABLE READ fixes the snapshot at the first query. SQLite in WAL mode (see
    settings): a transaction's first read fixes what it sees until it ends. Without it, rows
    written between two tables' reads point at rows the backup does not hold.
    """
    connection = connections[using]
    outermost = not connection.in_atomic_block
    with transaction.atomic(using=using):
        if outermost and connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        yield


def collect(using: str = DEFAULT_DB_ALIAS) -> dict[str, Any]:
    """The whole backup as a JSON-ready dict, read from one consistent snapshot."""
    objects: list[dict] = []
    counts: dict[str, int] = {}
    with _snapshot(using):
        for model in sorted_models():
            rows = serializers.serialize(
                "python",
                _rows(model).using(using).iterator(chunk_size=500),
                use_natural_foreign_keys=True,
                use_natural_primary_keys=False,
            )
            counts[label(model)] = len(rows)
            objects.extend(rows)
    return {
        "format": BACKUP_FORMAT,
        "version": FORMAT_VERSION,
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "counts": counts,
        "objects": objects,
    }


class LosslessJSONEncoder(DjangoJSONEncoder):
    """Django's JSON encoder, except that datetimes and times keep all six digits of microseconds."""

    def default(self, o: Any) -> Any:
        # DjangoJSONEncoder rounds to milliseconds (ECMA-262 style): a restore would change
        # every timestamp's sub-millisecond part, so the restored rows would not be the backed-up ones.
        if isinstance(o, datetime | time):
            text = o.isoformat()
            return text[:-6] + "Z" if text.endswith("+00:00") else text
        return super().default(o)


def dumps(backup: dict[str, Any]) -> str:
    """The backup as JSON text (datetimes to the microsecond, decimals and UUIDs as Django writes them)."""
    return json.dumps(backup, cls=LosslessJSONEncoder, indent=1, ensure_ascii=False) + "\n"


def write_file(path: str | Path, backup: dict[str, Any]) -> None:
    """Write the backup so that `path` is either the old file or the complete new one."""
    target = Path(path)
    fd, temp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(dumps(backup))
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, target)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def parse(text: str | bytes) -> dict[str, Any]:
    """A backup file's content, checked for its format and version; BackupError if unusable."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise BackupError(
            f"not a policyeditor backup: the file is not valid JSON ({exc})"
        ) from None
    if not isinstance(data, dict) or data.get("format") != BACKUP_FORMAT:
        raise BackupError(f'not a policyeditor backup: "format" is not "{BACKUP_FORMAT}"')
    if data.get("version") != FORMAT_VERSION:
        raise BackupError(
            f"unsupported backup version {data.get('version')!r} (this release reads version "
            f"{FORMAT_VERSION})"
        )
    objects = data.get("objects")
    if not isinstance(objects, list) or not all(isinstance(o, dict) for o in objects):
        raise BackupError('not a policyeditor backup: "objects" is not a list of objects')
    known = {label(model) for model in sorted_models()}
    for index, item in enumerate(objects):
        model = item.get("model")
        if isinstance(model, str) and model in MOVED:
            model = item["model"] = MOVED[model]
        if model not in known:
            raise BackupError(f"object {index + 1}: {model!r} is not a model this backup holds")
    return data


def verify(data: dict[str, Any]) -> None:
    """BackupError unless the counts match the rows and every reference resolves in the file.

    References to models the backup does not hold (content types, permissions: `migrate`
    recreates them) are not checked; everything else must point at a row of the file.
    """
    actual: dict[str, int] = {}
    for item in data["objects"]:
        actual[item["model"]] = actual.get(item["model"], 0) + 1
    stated = {name: count for name, count in data.get("counts", {}).items() if count}
    if stated != actual:
        raise BackupError(f"the counts do not match the rows: stated {stated}, found {actual}")
    models = {label(model): model for model in sorted_models()}
    present = _row_keys(data["objects"], models)
    for index, item in enumerate(data["objects"]):
        model = models[item["model"]]
        for field in [*model._meta.concrete_fields, *model._meta.many_to_many]:
            if not field.is_relation or field.name not in item["fields"]:
                continue
            related = field.related_model
            if related is None:  # a generic relation: no one model it points to
                continue
            target = label(related)
            if target not in models:
                continue
            value = item["fields"][field.name]
            for reference in value if field.many_to_many else [value]:
                if reference is not None and _key(reference) not in present[target]:
                    raise BackupError(
                        f"object {index + 1} ({item['model']} {item.get('pk')}): {field.name} "
                        f"points at {target} {reference!r}, which the backup does not hold"
                    )


def _key(reference: Any) -> Any:
    # Natural keys are serialized as lists; primary keys as they are.
    return tuple(reference) if isinstance(reference, list) else reference


def _row_keys(objects: list[dict], models: dict[str, type[Model]]) -> dict[str, set]:
    """Per model, the primary keys and natural keys of the rows the file holds."""
    present: dict[str, set] = {name: set() for name in models}
    for item in objects:
        model = models[item["model"]]
        present[item["model"]].add(item.get("pk"))
        if hasattr(model, "natural_key"):
            local = {
                f.attname: item["fields"][f.name]
                for f in model._meta.concrete_fields
                if f.name in item["fields"] and not f.is_relation
            }
            # natural_key is a convention some models follow, not a Model method.
            row: Any = model(**local)
            present[item["model"]].add(tuple(row.natural_key()))
    return present


def existing_rows(using: str = DEFAULT_DB_ALIAS) -> dict[str, int]:
    """How many rows each backed-up model holds now (only the non-empty ones)."""
    counts = {label(m): m._base_manager.using(using).count() for m in sorted_models()}
    return {name: count for name, count in counts.items() if count}


def _tables(models: list[type[Model]]) -> list[str]:
    """The tables of the models and of their many-to-many links."""
    tables = []
    for model in models:
        tables.append(model._meta.db_table)
        for field in model._meta.local_many_to_many:
            through = field.remote_field.through
            if through is not None and through._meta.auto_created:
                tables.append(through._meta.db_table)
    return tables


def _empty(models: list[type[Model]], using: str) -> None:
    # Plain SQL, like `flush`: model delete() would fire signals and refuse immutable rows.
    connection = connections[using]
    statements = connection.ops.sql_flush(
        no_style(), _tables(models), reset_sequences=False, allow_cascade=True
    )
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # TRUNCATE refuses tables with deferred foreign-key checks still pending from earlier
            # writes in this transaction: run those checks now, then defer again for the load.
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        for sql in statements:
            cursor.execute(sql)
        if connection.vendor == "postgresql":
            cursor.execute("SET CONSTRAINTS ALL DEFERRED")


def _reset_sequences(models: list[type[Model]], using: str) -> None:
    # Keeping primary keys leaves PostgreSQL sequences behind; new rows would collide.
    connection = connections[using]
    statements = connection.ops.sequence_reset_sql(no_style(), models)
    if statements:
        with connection.cursor() as cursor:
            for sql in statements:
                cursor.execute(sql)


def restore(
    data: dict[str, Any], *, replace: bool = False, using: str = DEFAULT_DB_ALIAS
) -> dict[str, int]:
    """Load a parsed backup in one transaction; the counts of rows restored per model.

    Without replace, a database that already holds data is refused (BackupError) and untouched.
    """
    models = sorted_models()
    try:
        with transaction.atomic(using=using):
            present = existing_rows(using)
            if present and not replace:
                summary = ", ".join(f"{count} {name}" for name, count in sorted(present.items()))
                raise BackupError(
                    f"the database already holds data ({summary}); restore --replace "
                    "replaces all of it with the backup"
                )
            if replace:
                _empty(models, using)
            counts: dict[str, int] = {}
            deferred = []
            objects = serializers.deserialize(
                "python", data["objects"], using=using, handle_forward_references=True
            )
            for item in objects:
                item.save(using=using)
                if item.deferred_fields:
                    deferred.append(item)
                name = label(type(item.object))
                counts[name] = counts.get(name, 0) + 1
            for item in deferred:
                item.save_deferred_fields(using=using)
            # Foreign keys are checked at commit; check now so a dangling one fails in here.
            connections[using].check_constraints(table_names=_tables(models))
            _reset_sequences(models, using)
    except (
        DeserializationError,
        IntegrityError,
        DatabaseError,
        FieldDoesNotExist,
        ObjectDoesNotExist,
        ValidationError,
        ValueError,
        TypeError,
        KeyError,
    ) as exc:
        raise BackupError(f"the backup could not be restored, nothing was changed: {exc}") from exc
    return counts
