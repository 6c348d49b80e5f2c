"""Model fields shared by the apps."""

from __future__ import annotations

import json
from typing import Any

from django.db import models


class OrderedJSONField(models.JSONField):
    """A JSONField that keeps object keys in the order they were written, on every database.

    PostgreSQL's `jsonb` (Django's JSONField there) re-sorts keys by length, so a policy saved as
    apiVersion, kind, metadata, spec would come back as kind, spec, metadata, ... and its exported
    YAML would differ from what was reviewed. The `json` type stores the text as written. Queries
    never filter inside these documents, so jsonb's operators are not needed.
    """

    def db_type(self, connection) -> str | None:
        """`json` on PostgreSQL; the usual JSON column elsewhere."""
        if connection.vendor == "postgresql":
            return "json"
        return super().db_type(connection)

    def get_db_prep_value(self, value: Any, connection, prepared: bool = False) -> Any:
        """Send PostgreSQL the JSON text itself: a jsonb adapter would re-sort the keys."""
        if connection.vendor == "postgresql" and value is not None:
            return json.dumps(value, cls=self.encoder)
        return super().get_db_prep_value(value, connection, prepared)

    def from_db_value(self, value: Any, expression, connection) -> Any:
        """psycopg parses `json` columns itself (keeping key order); text is parsed here."""
        if value is None or not isinstance(value, str | bytes | bytearray):
            return value
        # django-stubs types `value` as str | None; Django hands it to json.loads, which reads bytes.
        return super().from_db_value(value, expression, connection)  # type: ignore[arg-type]


def storage_limit_fields(
    drafts: str, whose: str
) -> tuple[
    models.PositiveIntegerField, models.PositiveIntegerField, models.PositiveBigIntegerField
]:
    """The max_drafts, max_revisions and max_bytes overrides of a storage quota (empty: the
    default, 0: no limit); `drafts` says which drafts count, `whose` whose revisions."""
    return (
        models.PositiveIntegerField(null=True, blank=True, help_text=f"{drafts} (0: no limit)"),
        models.PositiveIntegerField(
            null=True, blank=True, help_text=f"revisions of {whose} drafts (0: no limit)"
        ),
        models.PositiveBigIntegerField(
            null=True,
            blank=True,
            help_text=f"bytes of the revisions of {whose} drafts (0: no limit)",
        ),
    )
