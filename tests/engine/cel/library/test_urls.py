"""kubernetes.urls: Go net/url parsing, getters and error texts."""

from __future__ import annotations

import pytest

from policyeditor.engine.cel.library import urls
from tests.engine.cel.library.helpers import eval_error, evaluate, library_error

URLS = ("kubernetes.urls",)


def test_host_hostname_and_port_split_like_go() -> None:
    url = urls.to_url("https://user:pass@kubernetes.io:80/docs?x=1#frag")
    assert (url.scheme, url.host, url.hostname(), url.port()) == (
        "https",
        "kubernetes.io:80",
        "kubernetes.io",
        "80",
    )


def test_ipv6_hosts_keep_brackets_in_host_but_not_in_hostname() -> None:
    url = urls.to_url("https://[::1]:8080/")
    assert (url.host, url.hostname(), url.port()) == ("[::1]:8080", "::1", "8080")


def test_zone_in_ipv6_host_is_unescaped() -> None:
    url = urls.to_url("http://[fe80::1%25en0]:8080/")
    assert url.host == "[fe80::1%en0]:8080"
    assert url.hostname() == "fe80::1%en0"


def test_escaped_path_re_escapes_or_keeps_a_valid_raw_path() -> None:
    assert urls.to_url("https://example.com/with space/").escaped_path() == "/with%20space/"
    assert urls.to_url("https://example.com/a%2Fb").escaped_path() == "/a%2Fb"
    # a raw path that is a valid encoding of the path is kept as written
    assert urls.to_url("https://example.com/%61").escaped_path() == "/%61"


def test_query_collects_repeated_keys_and_unescapes() -> None:
    url = urls.to_url("https://x/?a=1&a=2&b=hello+world&c=%41&d")
    assert url.query() == {"a": ["1", "2"], "b": ["hello world"], "c": ["A"], "d": [""]}
    assert urls.to_url("https://x/?").query() == {}


def test_query_pairs_with_semicolons_or_bad_escapes_are_dropped() -> None:
    assert urls.parse_query("a=1;b=2&c=3&d=%zz") == {"c": ["3"]}


def test_fragment_is_split_off_before_the_query() -> None:
    url = urls.to_url("https://x/p?q=1#frag?not=query")
    assert url.query() == {"q": ["1"]}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("example.com", 'parse "example.com": invalid URI for request'),
        ("", 'parse "": empty url'),
        ("https://a:b:c/", 'parse "https://a:b:c/": invalid port ":c" after host'),
        ("http://x/%zz", 'parse "http://x/%zz": invalid URL escape "%zz"'),
        (":foo", 'parse ":foo": missing protocol scheme'),
        ("http://[::1/", "parse \"http://[::1/\": missing ']' in host"),
        ("http://a b/", 'parse "http://a b/": invalid character " " in host name'),
        ("http://x/\x7f", 'parse "http://x/\\x7f": net/url: invalid control character in URL'),
    ],
)
def test_parse_errors_read_as_go_errors(text: str, message: str) -> None:
    error = library_error(urls.to_url, text)
    assert str(error) == f"URL parse error during conversion from string: {message}"


def test_absolute_paths_and_opaque_uris_are_urls() -> None:
    assert urls.is_url("/just/a/path")
    assert urls.is_url("mailto:someone@example.com")
    assert not urls.is_url("relative/path")


def test_getters_through_cel() -> None:
    expr = "url('https://example.com:8443/a b?k=v').{}()"
    assert evaluate(expr.format("getScheme"), URLS) == "https"
    assert evaluate(expr.format("getHostname"), URLS) == "example.com"
    assert evaluate(expr.format("getPort"), URLS) == "8443"
    assert evaluate(expr.format("getEscapedPath"), URLS) == "/a%20b"
    assert evaluate(expr.format("getQuery"), URLS) == {"k": ["v"]}


def test_url_of_a_bad_string_is_a_runtime_error_with_the_kubernetes_prefix() -> None:
    error = eval_error("url('x').getHost()", URLS)
    assert error.phase == "runtime"
    assert str(error).startswith("URL parse error during conversion from string: ")


def test_urls_compare_by_value() -> None:
    assert evaluate("url('https://a/') == url('https://a/')", URLS) is True
    assert evaluate("url('https://a/') == url('https://b/')", URLS) is False
