"""Refuse form bodies that declare a charset other than UTF-8, before anything decodes them.

Django decodes form fields with the charset the request declares. Our pages always post UTF-8,
but a hand-made request declaring, say, utf-7 turns `+2AA-` into a lone surrogate, which no page
can render and no database column can store (a 500). Such a request gets a 400 that says why.
"""

from __future__ import annotations

import codecs
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest

FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")
_UTF8 = codecs.lookup("utf-8").name
_ASCII = codecs.lookup("ascii").name


def declared_charset(request: HttpRequest) -> str | None:
    """The charset a form request declares when it is neither UTF-8 nor ASCII, else None."""
    if request.content_type not in FORM_TYPES:
        return None
    charset = (request.content_params or {}).get("charset")
    if not charset:
        return None
    try:
        name = codecs.lookup(charset).name
    except LookupError:
        return charset
    return None if name in (_UTF8, _ASCII) else charset


class FormCharsetMiddleware:
    """400 for form posts declaring a charset other than UTF-8 (placed before CSRF reads them)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        charset = declared_charset(request)
        if charset is not None:
            return HttpResponseBadRequest(
                f"Forms are read as UTF-8; this request declares charset {charset!r}.",
                content_type="text/plain; charset=utf-8",
            )
        return self.get_response(request)
