"""CEL declarations of kubernetes.urls: url(), isURL() and the URL getters."""

from __future__ import annotations

import functools
from collections.abc import Callable

from policyeditor.engine.cel.library import urls
from policyeditor.engine.cel.library.decls import Spec
from policyeditor.engine.cel.library.types import URL, URLFields, URLMessage


def make_url(text: str) -> object:
    """url(string): validates as Kubernetes does; the message keeps the source text."""
    urls.to_url(text)
    return URLMessage(raw=text)


@functools.lru_cache(maxsize=256)
def _parsed(raw: str) -> urls.URL:
    return urls.parse(raw)


def _getter(read: Callable[[urls.URL], object]) -> Callable[[URLFields], object]:
    return lambda message: read(_parsed(message.raw))


def specs(version: int) -> list[Spec]:
    """All overloads of the library."""
    return [
        Spec("url", "string_to_url", ("string",), URL, False, make_url),
        Spec("isURL", "is_url_string", ("string",), "bool", False, urls.is_url),
        Spec("getScheme", "url_get_scheme", (URL,), "string", True, _getter(lambda u: u.scheme)),
        Spec("getHost", "url_get_host", (URL,), "string", True, _getter(lambda u: u.host)),
        Spec("getHostname", "url_get_hostname", (URL,), "string", True, _getter(urls.URL.hostname)),
        Spec("getPort", "url_get_port", (URL,), "string", True, _getter(urls.URL.port)),
        Spec(
            "getEscapedPath",
            "url_get_escaped_path",
            (URL,),
            "string",
            True,
            _getter(urls.URL.escaped_path),
        ),
        Spec(
            "getQuery",
            "url_get_query",
            (URL,),
            "map<string, list<string>>",
            True,
            _getter(urls.URL.query),
        ),
    ]
