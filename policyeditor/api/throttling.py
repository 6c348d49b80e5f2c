"""Request throttling per API token and per user (a user may hold many tokens), counted atomically."""

from __future__ import annotations

from django.conf import settings
from rest_framework.throttling import BaseThrottle

from policyeditor.api.models import ApiToken
from policyeditor.core.rate_limit import hit

DEFAULT_RATE = "600/minute"


def parse_rate(rate: str) -> tuple[int, int]:
    """'600/minute' -> (600, 60): DRF's rate syntax (SimpleRateThrottle.parse_rate)."""
    count, period = rate.split("/")
    return int(count), {"s": 1, "m": 60, "h": 3600, "d": 86400}[period[0]]


class ApiRateThrottle(BaseThrottle):
    """One budget per API token and one per user across all their tokens and their browser session.

    The counters are rows of core.RateCounter, incremented in one atomic statement, so every
    gunicorn worker shares them and concurrent requests cannot slip past the limit.
    """

    scope = "api"

    def __init__(self) -> None:
        self._wait: float | None = None

    def get_rate(self) -> str | None:
        # Read at request time (not import time) so deployments and tests can change it;
        # POLICYEDITOR_API_THROTTLE_RATE = None turns throttling off.
        return getattr(settings, "POLICYEDITOR_API_THROTTLE_RATE", DEFAULT_RATE)

    def get_user_rate(self) -> str | None:
        """The budget of one user over all their tokens (POLICYEDITOR_API_USER_THROTTLE_RATE)."""
        return getattr(settings, "POLICYEDITOR_API_USER_THROTTLE_RATE", None) or self.get_rate()

    def keys(self, request) -> list[tuple[str, str | None]]:
        """(counter key, rate) pairs a request counts against."""
        if request.user and request.user.is_authenticated:
            user = (f"api:user-{request.user.pk}", self.get_user_rate())
            if isinstance(request.auth, ApiToken):
                return [(f"api:token-{request.auth.pk}", self.get_rate()), user]
            return [user]
        return [(f"api:ip-{self.get_ident(request)}", self.get_rate())]

    def allow_request(self, request, view) -> bool:
        if self.get_rate() is None:
            return True
        for key, rate in self.keys(request):
            if rate is None:
                continue
            limit, duration = parse_rate(rate)
            verdict = hit(key, limit, duration)
            if not verdict.allowed:
                self._wait = verdict.wait
                return False
        return True

    def wait(self) -> float | None:
        return self._wait
