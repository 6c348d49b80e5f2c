"""Per-token request throttling (per user for browser sessions)."""

from __future__ import annotations

from django.conf import settings
from rest_framework.throttling import SimpleRateThrottle

from policyeditor.api.models import ApiToken

DEFAULT_RATE = "600/minute"


class ApiRateThrottle(SimpleRateThrottle):
    """One budget per API token; session requests share their user's budget."""

    scope = "api"

    def get_rate(self) -> str | None:
        # Read at request time (not import time) so deployments and tests can change it;
        # POLICYEDITOR_API_THROTTLE_RATE = None turns throttling off.
        return getattr(settings, "POLICYEDITOR_API_THROTTLE_RATE", DEFAULT_RATE)

    def get_cache_key(self, request, view) -> str | None:
        if isinstance(request.auth, ApiToken):
            ident = f"token-{request.auth.pk}"
        elif request.user and request.user.is_authenticated:
            ident = f"user-{request.user.pk}"
        else:
            ident = f"ip-{self.get_ident(request)}"
        return self.cache_format % {"scope": self.scope, "ident": ident}
