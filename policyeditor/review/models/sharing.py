"""Read-only share links to a revision, with the Try-it inputs shared along."""

from __future__ import annotations

import secrets

from django.conf import settings
from django.db import models
from django.urls import reverse

from policyeditor.editor.models import Revision


def new_token() -> str:
    """A new share link token."""
    # Short enough to read out or paste in a chat, still 96 random bits.
    return secrets.token_urlsafe(12)


class ShareLink(models.Model):
    """A read-only link to one revision for team members; revocable."""

    token = models.CharField(max_length=64, unique=True, default=new_token)
    revision = models.ForeignKey(Revision, on_delete=models.CASCADE, related_name="share_links")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created = models.DateTimeField(auto_now_add=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    # The Try-it inputs shared with the revision (the editor's try_* fields), empty for a plain link.
    try_inputs = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-created", "-pk"]

    def __str__(self) -> str:
        return f"share link to {self.revision}"

    def get_absolute_url(self) -> str:
        return reverse("review:shared", args=[self.token])

    @property
    def revoked(self) -> bool:
        """Whether the link no longer opens."""
        return self.revoked_at is not None
