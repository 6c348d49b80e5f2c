"""A fair share of the CEL worker pool: at most N engine calls at once per user, across every server process."""

# Why file locks (fcntl.flock) in the data directory rather than PostgreSQL advisory locks:
# - every deployment has the data directory on one machine (gunicorn's workers are processes of
#   one master), while SQLite has no advisory locks at all and PostgreSQL's would hold a database
#   connection for as long as a (possibly runaway) evaluation runs;
# - the kernel releases a flock when its process dies (a worker killed by gunicorn's timeout
#   never leaks a slot), and a flock belongs to one open file description, so two threads of one
#   process holding the same user's slots are counted apart too.
# A deployment spread over several machines needs a shared lock service instead (docs/security.md).

from __future__ import annotations

import contextvars
import fcntl
import hashlib
import math
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.db import connection
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from policyeditor.engine.isolation import DEFAULT_TIMEOUT

DEFAULT_PER_USER = 2
DEFAULT_QUEUE_SECONDS = 3.0
POLL_SECONDS = 0.05
TEMPLATE = "core/engine_busy.html"

# The request being served in this thread (set by FairShareMiddleware): its user owns the slots.
_current: contextvars.ContextVar[_RequestState | None] = contextvars.ContextVar(
    "policyeditor_fair_share", default=None
)


class EngineBusy(Exception):
    """The user already runs as many engine calls as they may; the message is for the user."""

    def __init__(self, message: str, *, retry_after: int) -> None:
        super().__init__(message)
        self.message = message
        self.retry_after = retry_after


@dataclass
class _RequestState:
    request: HttpRequest
    held: int = 0  # slots this request holds now (a request needs one, however many calls)


class Slot:
    """One held evaluation slot; release() gives it back (idempotent)."""

    def __init__(self, fd: int | None, state: _RequestState | None) -> None:
        self._fd = fd
        self._state = state

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the descriptor drops the flock
            self._fd = None
            if self._state is not None:
                self._state.held -= 1


def per_user_limit() -> int:
    """How many engine calls one user may run at once (POLICYEDITOR_EVAL_PER_USER; 0 is no limit)."""
    return int(getattr(settings, "POLICYEDITOR_EVAL_PER_USER", DEFAULT_PER_USER))


def queue_seconds() -> float:
    """How long a call past the limit waits for a slot before it is refused."""
    return float(getattr(settings, "POLICYEDITOR_EVAL_QUEUE_SECONDS", DEFAULT_QUEUE_SECONDS))


def retry_after_seconds() -> int:
    """What a refused client is told to wait: about one evaluation deadline."""
    return max(1, math.ceil(DEFAULT_TIMEOUT))


def busy_message(limit: int) -> str:
    """The sentence a refused user reads."""
    calls = "evaluation" if limit == 1 else "evaluations"
    return (
        f"You already have {limit} {calls} running, the most one user may run at once so that "
        f"everyone gets a share of the evaluation workers. Try again in {retry_after_seconds()} s."
    )


def slots_dir() -> Path:
    """Where the lock files live: one folder per database, since user ids belong to a database."""
    db = settings.DATABASES["default"]
    identity = f"{db.get('ENGINE')}|{db.get('HOST')}|{db.get('PORT')}|{connection.settings_dict.get('NAME')}"
    name = hashlib.sha256(identity.encode()).hexdigest()[:16]
    base = getattr(settings, "POLICYEDITOR_EVAL_SLOTS_DIR", None) or (
        Path(settings.DATA_DIR) / "eval-slots"
    )
    return Path(base) / name


def owner_key(request: HttpRequest) -> str:
    """Whose share a request uses: its user, else its client address."""
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return f"user-{user.pk}"
    address = re.sub(r"[^0-9A-Fa-f.:]", "_", request.META.get("REMOTE_ADDR", "") or "unknown")
    return "ip-" + address.replace(":", "_")


def acquire(key: str, limit: int, wait: float) -> int:
    """A locked file descriptor for one of `key`'s `limit` slots; EngineBusy after `wait` seconds."""
    folder = slots_dir()
    folder.mkdir(parents=True, exist_ok=True)
    deadline = time.monotonic() + wait
    while True:
        for index in range(limit):
            fd = os.open(folder / f"{key}.{index}.lock", os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            return fd
        if time.monotonic() >= deadline:
            raise EngineBusy(busy_message(limit), retry_after=retry_after_seconds())
        time.sleep(POLL_SECONDS)


def take_slot() -> Slot:
    """A slot for an engine call of the current request (none needed outside a request)."""
    state = _current.get()
    limit = per_user_limit()
    if state is None or limit <= 0 or state.held > 0:
        # Not serving a request (a management command), no limit, or this request already holds
        # a slot: one request is one share, however many engine calls it makes.
        return Slot(None, None)
    fd = acquire(owner_key(state.request), limit, queue_seconds())
    state.held += 1
    return Slot(fd, state)


def busy_response(request: HttpRequest, exc: EngineBusy) -> HttpResponse:
    """The 429 page (or, for htmx, the message alone) of a refused engine call."""
    context = {"message": exc.message, "fragment": bool(getattr(request, "htmx", False))}
    response = render(request, TEMPLATE, context, status=429)
    response["Retry-After"] = str(exc.retry_after)
    return response


class FairShareMiddleware:
    """Records whose request this thread serves; a refused engine call becomes a 429 page."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        token = _current.set(_RequestState(request))
        try:
            return self.get_response(request)
        finally:
            _current.reset(token)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, EngineBusy):
            return busy_response(request, exception)
        return None
