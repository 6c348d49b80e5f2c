"""Request types of the app's views, for type checkers: what the middleware guarantees."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails


class AuthenticatedRequest(HttpRequest):
    """A request past LoginRequiredMiddleware: `user` is a signed-in User."""

    user: User


class HtmxRequest(AuthenticatedRequest):
    """An authenticated request that django-htmx's HtmxMiddleware has given `htmx`."""

    htmx: HtmxDetails
