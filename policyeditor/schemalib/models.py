"""One stored version of a team's CRDs per import; the newest is the team's library."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from policyeditor.teams.models import Team


class LibraryVersion(models.Model):
    """The full set of a team's CRDs after one import (earlier versions are kept, read-only)."""

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="crd_versions")
    number = models.PositiveIntegerField()
    # Every CRD of the library (apiextensions.k8s.io/v1 documents), as checked at import.
    documents = models.JSONField(default=list)
    # [{"name", "group", "kind", "plural", "scope", "versions": [...], "storage"}] for the page.
    summary = models.JSONField(default=list)
    note = models.CharField(max_length=200, blank=True)  # what the import added or replaced
    size = models.PositiveIntegerField(default=0)  # bytes of the imported text
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["team", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["team", "number"], name="schemalib_team_number_unique")
        ]

    def __str__(self) -> str:
        return f"{self.team} CRDs v{self.number}"
