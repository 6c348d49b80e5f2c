"""Login throttling with django-axes: the lockout page and the client address it counts by.

Why django-axes rather than a small cache-based limiter: the default cache here is per process
(LocMemCache), so a cache counter would give an attacker the limit once per gunicorn worker and
forget everything at each restart. Axes records failures in the database every worker shares,
hooks every authenticate() call (the sign-in page and the admin's), and is a maintained project.
Settings (AXES_* in policyeditor/settings.py) lock a username out from one address after
LOGIN_FAILURE_LIMIT failures (default 5) for LOGIN_COOLOFF_MINUTES (default 15).
"""

from __future__ import annotations

import datetime
import os

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

TEMPLATE = "core/locked_out.html"
# How many reverse proxies in front of gunicorn append to X-Forwarded-For (0: trust no header).
TRUSTED_PROXIES = int(os.environ.get("POLICYEDITOR_TRUSTED_PROXIES", "0"))


def client_ip(request: HttpRequest) -> str:
    """The address a sign-in comes from: REMOTE_ADDR, or the hop our own proxies saw."""
    remote = request.META.get("REMOTE_ADDR", "") or ""
    if TRUSTED_PROXIES <= 0:
        return remote
    # Each trusted proxy appends the address it received from; earlier entries are client-made.
    hops = [hop.strip() for hop in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
    hops = [hop for hop in hops if hop]
    return hops[-TRUSTED_PROXIES] if len(hops) >= TRUSTED_PROXIES else remote


def cooloff_minutes() -> int:
    """How long a lockout lasts, in whole minutes (at least 1)."""
    cooloff = getattr(settings, "AXES_COOLOFF_TIME", None)
    seconds = cooloff.total_seconds() if isinstance(cooloff, datetime.timedelta) else 0
    return max(1, round(seconds / 60))


def lockout_message() -> str:
    """The sentence a locked-out user reads."""
    minutes = cooloff_minutes()
    return (
        f"Too many failed sign-in attempts for this account from your address. "
        f"Sign-in is paused for {minutes} minute{'s' if minutes != 1 else ''}; "
        "try again later, or ask an administrator to unlock it (manage.py axes_reset_username)."
    )


def lockout_response(
    request: HttpRequest, original_response: HttpResponse | None = None, credentials=None
) -> HttpResponse:
    """The 429 page django-axes shows instead of the sign-in form while a lockout lasts."""
    response = render(
        request,
        TEMPLATE,
        {"message": lockout_message(), "retry_minutes": cooloff_minutes()},
        status=429,
    )
    response["Retry-After"] = str(cooloff_minutes() * 60)
    return response
