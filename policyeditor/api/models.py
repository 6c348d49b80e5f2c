"""Personal API tokens: only a SHA-256 digest is stored, the token itself is shown once."""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from django.conf import settings
from django.db import models
from django.utils import timezone

TOKEN_PREFIX = "pe_"
PREFIX_LENGTH = 10  # "pe_" plus 7 characters: enough to tell tokens apart in the list
DEFAULT_LIFETIME_DAYS = 90


def default_lifetime_days() -> int | None:
    """Days a new token lasts unless chosen otherwise (POLICYEDITOR_API_TOKEN_DAYS; 0: never expire)."""
    days = int(getattr(settings, "POLICYEDITOR_API_TOKEN_DAYS", DEFAULT_LIFETIME_DAYS))
    return days or None


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
    # None: never expires (the owner chose so); a password change revokes every token anyway.
    expires = models.DateTimeField(null=True, blank=True)

    objects = ApiTokenQuerySet.as_manager()

    class Meta:
        ordering = ["-created", "-pk"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @classmethod
    def issue(cls, user, name: str, *, days: int | None | str = "default") -> tuple[ApiToken, str]:
        """Create a token for `user` lasting `days` (None: no expiry); the row and the plain token."""
        plain = TOKEN_PREFIX + secrets.token_urlsafe(32)
        lifetime = default_lifetime_days() if days == "default" else days
        row = cls.objects.create(
            user=user,
            name=name.strip()[:100] or "token",
            prefix=plain[:PREFIX_LENGTH],
            digest=digest(plain),
            expires=timezone.now() + timedelta(days=int(lifetime)) if lifetime else None,
        )
        return row, plain

    @property
    def expired(self) -> bool:
        """Whether the token is past its expiry date."""
        return self.expires is not None and self.expires <= timezone.now()

    def touch(self) -> None:
        """Record use, at most once a minute (a write per request would cost every call)."""
        now = timezone.now()
        if self.last_used is None or (now - self.last_used).total_seconds() > 60:
            ApiToken.objects.filter(pk=self.pk).update(last_used=now)
            self.last_used = now
