"""The request type of views: Django's request with django-htmx's `request.htmx` details."""

from django.contrib.auth.models import User
from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails


class HtmxHttpRequest(HttpRequest):
    """A request that went through django_htmx's HtmxMiddleware (every request of this site)."""

    # As in django-htmx's documentation ("Type hints"): views annotate with this class so that
    # request.htmx type-checks; the middleware is in settings.MIDDLEWARE for every request.
    htmx: HtmxDetails


class AuthenticatedRequest(HtmxHttpRequest):
    """A request past LoginRequiredMiddleware: `user` is a signed-in User."""

    user: User
