"""Login throttling with django-axes: the lockout page and the client address it counts by.

Why django-axes rather than a small cache-based limiter: the default cache here is per process
(LocMemCache), so a cache counter would give an attacker the limit once per gunicorn worker and
forget everything at each restart. Axes records failures in the database every worker shares,
hooks every authenticate() call (the sign-in page and the admin's), and is a maintained project.
Settings (AXES_* in policyeditor/settings.py) lock a username out from one address after
LOGIN_FAILURE_LIMIT failures (default 5) for LOGIN_COOLOFF_MINUTES (default 15).

One address trying many usernames (password spraying) never reaches five failures on any one of
them, so failures are also counted per address alone, in core.RateCounter (LOGIN_ADDRESS_FAILURE_LIMIT,
default 20, over the same cool-off time): past it, that address may not sign in as anyone.
The limit is higher than the per-account one because many people may share one address (NAT).
"""

from __future__ import annotations

import datetime
import os

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from policyeditor.core.rate_limit import hit, recent

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


def address_failure_limit() -> int:
    """Failed sign-ins (any usernames) one address may make per cool-off time; 0 is no limit."""
    return int(getattr(settings, "POLICYEDITOR_LOGIN_ADDRESS_FAILURE_LIMIT", 20))


def _address_key(request: HttpRequest) -> str:
    return f"login-address:{client_ip(request)}"


def count_address_failure(sender, credentials=None, request=None, **kwargs) -> None:
    """user_login_failed receiver: one more failure for the request's address."""
    limit = address_failure_limit()
    if request is not None and limit > 0:
        hit(_address_key(request), limit, cooloff_minutes() * 60)


def address_locked(request: HttpRequest) -> bool:
    """Whether the request's address has failed to sign in too often lately."""
    limit = address_failure_limit()
    return limit > 0 and recent(_address_key(request), cooloff_minutes() * 60) >= limit


class AddressLockoutBackend:
    """First authentication backend: an address past its failure limit signs in as nobody.

    It has no get_user on purpose: it never signs anyone in, so sessions (and the test client's
    force_login) must not name it as the backend that did.
    """

    def authenticate(self, request: HttpRequest | None, **credentials):
        if request is not None and address_locked(request):
            # django-axes' middleware answers with lockout_response when this is set.
            request.axes_locked_out = True  # type: ignore[attr-defined]  # django-axes reads it
            request.address_locked_out = True  # type: ignore[attr-defined]  # our lockout page reads it
            raise PermissionDenied("too many failed sign-ins from this address")
        return None  # not locked: the next backends check the credentials


def lockout_message(*, address: bool = False) -> str:
    """The sentence a locked-out user reads."""
    minutes = cooloff_minutes()
    if address:
        return (
            "Too many failed sign-in attempts from your address, for several accounts. "
            f"Sign-in from this address is paused for up to {minutes} minute"
            f"{'s' if minutes != 1 else ''}; try again later."
        )
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
        {
            "message": lockout_message(address=bool(getattr(request, "address_locked_out", False))),
            "retry_minutes": cooloff_minutes(),
        },
        status=429,
    )
    response["Retry-After"] = str(cooloff_minutes() * 60)
    return response
