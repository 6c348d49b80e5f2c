"""The core app's models: the WriteOnce base and the request counters every process increments."""

from __future__ import annotations

from typing import Any

from django.db import models


class WriteOnce(models.Model):
    """A row written once: saving it again or deleting it alone raises `write_once_error`."""

    write_once_error = "rows of this table are written once"

    class Meta:
        abstract = True

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self.pk is not None:
            raise ValueError(self.write_once_error)
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> Any:
        raise ValueError(self.write_once_error)


class RateCounter(models.Model):
    """How many requests one key (a token, a user) made in one fixed window of time."""

    key = models.CharField(max_length=100)
    window = models.BigIntegerField(help_text="window start, in seconds since the epoch")
    count = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["key", "window"], name="core_ratecounter_key_window")
        ]

    def __str__(self) -> str:
        return f"{self.key}@{self.window}: {self.count}"
