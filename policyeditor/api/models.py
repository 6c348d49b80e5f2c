"""Personal API tokens: only a SHA-256 digest is stored, the token itself is shown once."""

from __future__ import annotations

import hashlib
import secrets

from django.conf import settings
from django.db import models
from django.utils import timezone

TOKEN_PREFIX = "pe_"
PREFIX_LENGTH = 10  # "pe_" plus 7 characters: enough to tell tokens apart in the list


def digest(token: str) -> str:
    """The stored form of a token; tokens are random, so a fast hash is enough."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


class ApiTokenQuerySet(models.QuerySet):
    """Token look-ups used by authentication and the settings page."""

    def for_user(self, user) -> ApiTokenQuerySet:
        """The tokens `user` owns, newest first."""
        return self.filter(user=user).order_by("-created", "-pk")

    def matching(self, token: str) -> ApiTokenQuerySet:
        """The token row whose digest matches `token` (at most one)."""
        return self.filter(digest=digest(token)).select_related("user")


class ApiToken(models.Model):
    """A personal token that authenticates API requests as its user until revoked."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=PREFIX_LENGTH)
    digest = models.CharField(max_length=64, unique=True)
    created = models.DateTimeField(auto_now_add=True)
    last_used = models.DateTimeField(null=True, blank=True)

    objects = ApiTokenQuerySet.as_manager()

    class Meta:
        ordering = ["-created", "-pk"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @classmethod
    def issue(cls, user, name: str) -> tuple[ApiToken, str]:
        """Create a token for `user`; returns the row and the plain token (never stored)."""
        plain = TOKEN_PREFIX + secrets.token_urlsafe(32)
        row = cls.objects.create(
            user=user,
            name=name.strip()[:100] or "token",
            prefix=plain[:PREFIX_LENGTH],
            digest=digest(plain),
        )
        return row, plain

    def touch(self) -> None:
        """Record use, at most once a minute (a write per request would cost every call)."""
        now = timezone.now()
        if self.last_used is None or (now - self.last_used).total_seconds() > 60:
            ApiToken.objects.filter(pk=self.pk).update(last_used=now)
            self.last_used = now
