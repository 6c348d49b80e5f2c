"""Shared tables of the core app: the request counters every server process increments."""

from __future__ import annotations

from django.db import models


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
