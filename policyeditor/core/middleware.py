"""Refuse request bodies over the 3 MiB limit with a friendly 413 instead of Django's bare 400.

Django raises RequestDataTooBig when request.POST or request.body is read past
DATA_UPLOAD_MAX_MEMORY_SIZE, and its handler turns that into a plain "Bad Request (400)" page
(often from inside CsrfViewMiddleware, before any view runs). This middleware sits before the
CSRF middleware and answers from the declared Content-Length, so nothing is read at all.

The REST API is left alone: its parsers (policyeditor.api.parsers.read_limited) already refuse
large bodies with a 413 problem JSON, and its exception handler covers RequestDataTooBig.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

DEFAULT_LIMIT = 3 * 1024 * 1024
TEMPLATE = "core/too_large.html"


def body_limit() -> int:
    """The largest body accepted, in bytes (settings.DATA_UPLOAD_MAX_MEMORY_SIZE, else 3 MiB)."""
    limit = getattr(settings, "DATA_UPLOAD_MAX_MEMORY_SIZE", None)
    return int(limit) if limit else DEFAULT_LIMIT


def declared_length(request: HttpRequest) -> int | None:
    """The request's Content-Length as a number, or None when absent or malformed."""
    try:
        value = int(request.META.get("CONTENT_LENGTH") or 0)
    except (TypeError, ValueError):
        return None
    return value if value > 0 else None


def _is_api_view(view_func: Callable) -> bool:
    """Whether the view is a DRF view (which enforces the limit itself with problem JSON)."""
    view_class = getattr(view_func, "cls", None)
    if view_class is None:
        return False
    from rest_framework.views import APIView

    return isinstance(view_class, type) and issubclass(view_class, APIView)


def allow_large_body(limit: int) -> Callable[[Callable], Callable]:
    """Let one view take bodies up to `limit` bytes (file uploads Django streams to disk)."""

    def mark(view_func: Callable) -> Callable:
        view_func.body_limit = limit  # type: ignore[attr-defined]
        return view_func

    return mark


def too_large_response(
    request: HttpRequest, size: int | None = None, limit: int | None = None
) -> HttpResponse:
    """A 413 page (or, for htmx, the message alone) saying how large a body may be."""
    limit = limit or body_limit()
    context = {
        "limit_mib": limit / (1024 * 1024),
        "limit": limit,
        "size_mib": size / (1024 * 1024) if size else None,
        "fragment": bool(getattr(request, "htmx", False)),
    }
    # Context processors read the session and user, never the body, so the full page is safe.
    # No "Connection: close": WSGI forbids an application hop-by-hop headers (PEP 3333), and the
    # development server of `make run` turned the 413 into a 500 for it. The servers decide:
    # gunicorn's sync workers close every connection, runserver reads the unread body away.
    return render(request, TEMPLATE, context, status=413)


class BodySizeLimitMiddleware:
    """413 for UI requests whose body is over the limit, before anything reads it."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_view(
        self, request: HttpRequest, view_func: Callable, view_args: tuple, view_kwargs: dict
    ) -> HttpResponse | None:
        """Answer 413 from the declared length; the view (and CSRF) never read the body."""
        size = declared_length(request)
        limit = getattr(view_func, "body_limit", None) or body_limit()
        if size is None or size <= limit or _is_api_view(view_func):
            return None
        return too_large_response(request, size, limit)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        """A view that read a too-large body anyway (no Content-Length to check) gets the 413 too."""
        if isinstance(exception, RequestDataTooBig):
            return too_large_response(request, declared_length(request))
        return None
