"""A port of Go net/url parsing (Parse, ParseRequestURI, EscapedPath, Query) for kubernetes.urls."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from policyeditor.engine.cel.library.errors import LibraryError, parses

# Go works on bytes; so do we (str is encoded as UTF-8 first), to keep indices and escapes exact.
_PATH, _PATH_SEGMENT, _HOST, _ZONE, _USER_PASSWORD, _QUERY_COMPONENT, _FRAGMENT = range(7)
_ALNUM = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
_HEX = frozenset(b"0123456789abcdefABCDEF")


class URLError(LibraryError):
    """A Go url.Parse/ParseRequestURI error; str() is Go's text (`parse "x": ...`)."""


def _go_quote(raw: bytes) -> str:
    # strconv.Quote for the short ASCII fragments Go puts in these messages
    out = []
    for byte in raw:
        char = chr(byte)
        if char in '"\\':
            out.append("\\" + char)
        elif 0x20 <= byte < 0x7F:
            out.append(char)
        else:
            out.append(f"\\x{byte:02x}")
    return '"' + "".join(out) + '"'


def _should_escape(c: int, mode: int) -> bool:
    if c in _ALNUM:
        return False
    char = chr(c)
    if mode in (_HOST, _ZONE) and char in "!$&'()*+,;=:[]<>\"":
        return False
    if char in "-_.~":
        return False
    if char in "$&+,/:;=?@":
        if mode == _PATH:
            return char == "?"
        if mode == _PATH_SEGMENT:
            return char in "/;,?"
        if mode == _USER_PASSWORD:
            return char in "@/?:"
        if mode == _QUERY_COMPONENT:
            return True
        if mode == _FRAGMENT:
            return False
    return not (mode == _FRAGMENT and char in "!()*")


class _Invalid(Exception):
    """An inner net/url error (before the `parse "url": ` wrapping)."""


def _unescape(s: bytes, mode: int) -> bytes:
    i = 0
    while i < len(s):
        c = s[i]
        if c == 0x25:  # %
            if i + 2 >= len(s) or s[i + 1] not in _HEX or s[i + 2] not in _HEX:
                raise _Invalid("invalid URL escape " + _go_quote(s[i : i + 3]))
            value = int(s[i + 1 : i + 3], 16)
            if mode == _HOST and int(s[i + 1 : i + 2], 16) < 8 and s[i : i + 3] != b"%25":
                raise _Invalid("invalid URL escape " + _go_quote(s[i : i + 3]))
            zone_bad = mode == _ZONE and s[i : i + 3] != b"%25" and value != 0x20
            if zone_bad and _should_escape(value, _HOST):
                raise _Invalid("invalid URL escape " + _go_quote(s[i : i + 3]))
            i += 3
            continue
        if mode in (_HOST, _ZONE) and c < 0x80 and _should_escape(c, mode):
            raise _Invalid("invalid character " + _go_quote(s[i : i + 1]) + " in host name")
        i += 1
    out = bytearray()
    i = 0
    while i < len(s):
        c = s[i]
        if c == 0x25:
            out.append(int(s[i + 1 : i + 3], 16))
            i += 3
        elif c == 0x2B and mode == _QUERY_COMPONENT:
            out.append(0x20)
            i += 1
        else:
            out.append(c)
            i += 1
    return bytes(out)


def _escape(s: bytes, mode: int) -> bytes:
    out = bytearray()
    for c in s:
        if _should_escape(c, mode):
            if c == 0x20 and mode == _QUERY_COMPONENT:
                out.append(0x2B)
            else:
                out.extend(b"%%%02X" % c)
        else:
            out.append(c)
    return bytes(out)


def _valid_optional_port(port: bytes) -> bool:
    if not port:
        return True
    return port[:1] == b":" and all(0x30 <= b <= 0x39 for b in port[1:])


def _valid_userinfo(s: bytes) -> bool:
    allowed = _ALNUM | frozenset(b"-._:~!$&'()*+,;=%@")
    return all(b in allowed for b in s)


def _valid_encoded(s: bytes, mode: int) -> bool:
    for c in s:
        if chr(c) in "!$&'()*+,;=:@[]%":
            continue
        if _should_escape(c, mode):
            return False
    return True


@dataclass
class URL:
    """The fields of Go's url.URL that the library reads."""

    scheme: str = ""
    opaque: str = ""
    host: str = ""
    path: bytes = b""
    raw_path: bytes = b""
    raw_query: str = ""
    fragment: bytes = b""
    has_user: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    def hostname(self) -> str:
        """Go URL.Hostname(): host without port, IPv6 without brackets."""
        return _split_host_port(self.host)[0]

    def port(self) -> str:
        """Go URL.Port(): the port digits or ''."""
        return _split_host_port(self.host)[1]

    def escaped_path(self) -> str:
        """Go URL.EscapedPath()."""
        if self.raw_path and _valid_encoded(self.raw_path, _PATH):
            try:
                if _unescape(self.raw_path, _PATH) == self.path:
                    return _text(self.raw_path)
            except _Invalid:
                pass
        if self.path == b"*":
            return "*"
        return _text(_escape(self.path, _PATH))

    def query(self) -> dict[str, list[str]]:
        """Go URL.Query(): ParseQuery of the raw query, bad pairs dropped."""
        return parse_query(self.raw_query)


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "replace")


def _split_host_port(host_port: str) -> tuple[str, str]:
    host, port = host_port, ""
    colon = host.rfind(":")
    if colon != -1 and _valid_optional_port(host[colon:].encode()):
        host, port = host[:colon], host[colon + 1 :]
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    return host, port


def parse_query(query: str) -> dict[str, list[str]]:
    """Go url.ParseQuery, ignoring its error (pairs with `;` or bad escapes are skipped)."""
    values: dict[str, list[str]] = {}
    raw = query.encode("utf-8", "surrogatepass")
    for part in raw.split(b"&"):
        if b";" in part or not part:
            continue
        key, _, value = part.partition(b"=")
        try:
            key_text = _text(_unescape(key, _QUERY_COMPONENT))
            value_text = _text(_unescape(value, _QUERY_COMPONENT))
        except _Invalid:
            continue
        values.setdefault(key_text, []).append(value_text)
    return values


def _get_scheme(raw: bytes) -> tuple[bytes, bytes]:
    for i, c in enumerate(raw):
        if 0x61 <= c <= 0x7A or 0x41 <= c <= 0x5A:
            continue
        if 0x30 <= c <= 0x39 or chr(c) in "+-.":
            if i == 0:
                return b"", raw
            continue
        if c == 0x3A:
            if i == 0:
                raise _Invalid("missing protocol scheme")
            return raw[:i], raw[i + 1 :]
        return b"", raw
    return b"", raw


def _parse_host(host: bytes) -> bytes:
    if host.startswith(b"["):
        i = host.rfind(b"]")
        if i < 0:
            raise _Invalid("missing ']' in host")
        colon_port = host[i + 1 :]
        if not _valid_optional_port(colon_port):
            raise _Invalid(f"invalid port {_go_quote(colon_port)} after host")
        zone = host[:i].find(b"%25")
        if zone >= 0:
            return (
                _unescape(host[:zone], _HOST)
                + _unescape(host[zone:i], _ZONE)
                + _unescape(host[i:], _HOST)
            )
    else:
        i = host.rfind(b":")
        if i != -1:
            colon_port = host[i:]
            if not _valid_optional_port(colon_port):
                raise _Invalid(f"invalid port {_go_quote(colon_port)} after host")
    return _unescape(host, _HOST)


def _parse_authority(authority: bytes, url: URL) -> None:
    at = authority.rfind(b"@")
    url.host = _text(_parse_host(authority if at < 0 else authority[at + 1 :]))
    if at < 0:
        return
    userinfo = authority[:at]
    if not _valid_userinfo(userinfo):
        raise _Invalid("net/url: invalid userinfo")
    user, _, password = userinfo.partition(b":")
    _unescape(user, _USER_PASSWORD)
    _unescape(password, _USER_PASSWORD)
    url.has_user = True


def _parse(raw: bytes, via_request: bool) -> URL:
    if any(b < 0x20 or b == 0x7F for b in raw):
        raise _Invalid("net/url: invalid control character in URL")
    if not raw and via_request:
        raise _Invalid("empty url")
    url = URL()
    if raw == b"*":
        url.path = b"*"
        return url
    scheme, rest = _get_scheme(raw)
    url.scheme = _text(scheme).lower()
    if rest.endswith(b"?") and rest.count(b"?") == 1:
        rest = rest[:-1]
    else:
        rest, _, query = rest.partition(b"?")
        url.raw_query = _text(query)
    if not rest.startswith(b"/"):
        if url.scheme:
            url.opaque = _text(rest)
            return url
        if via_request:
            raise _Invalid("invalid URI for request")
        if b":" in rest.partition(b"/")[0]:
            raise _Invalid("first path segment in URL cannot contain colon")
    if (url.scheme or (not via_request and not rest.startswith(b"///"))) and rest.startswith(b"//"):
        authority, rest = rest[2:], b""
        slash = authority.find(b"/")
        if slash >= 0:
            authority, rest = authority[:slash], authority[slash:]
        _parse_authority(authority, url)
    url.path = _unescape(rest, _PATH)
    url.raw_path = b"" if _escape(url.path, _PATH) == rest else rest
    return url


def _wrap(raw: bytes, inner: _Invalid) -> URLError:
    return URLError(f"parse {_go_quote_text(raw)}: {inner}")


def _go_quote_text(raw: bytes) -> str:
    # strconv.Quote keeps printable Unicode as is
    text = raw.decode("utf-8", "replace")
    out = []
    for char in text:
        if char in '"\\':
            out.append("\\" + char)
        elif char == "\n":
            out.append("\\n")
        elif char == "\t":
            out.append("\\t")
        elif char == "\r":
            out.append("\\r")
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\x{ord(char):02x}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def parse(text: str) -> URL:
    """Go url.Parse (fragment split off first); URLError with Go's message."""
    raw = text.encode("utf-8", "surrogatepass")
    head, sep, fragment = raw.partition(b"#")
    try:
        url = _parse(head, False)
    except _Invalid as exc:
        raise _wrap(head, exc) from None
    if sep and fragment:
        try:
            url.fragment = _unescape(fragment, _FRAGMENT)
        except _Invalid as exc:
            raise _wrap(raw, exc) from None
    return url


def parse_request_uri(text: str) -> URL:
    """Go url.ParseRequestURI: absolute URI or absolute path, no fragment handling."""
    raw = text.encode("utf-8", "surrogatepass")
    try:
        return _parse(raw, True)
    except _Invalid as exc:
        raise _wrap(raw, exc) from None


def to_url(text: str) -> URL:
    """The library's url(): ParseRequestURI must accept, then Parse; Kubernetes error text."""
    try:
        parse_request_uri(text)
        return parse(text)
    except URLError as exc:
        raise LibraryError(f"URL parse error during conversion from string: {exc}") from None


def is_url(text: str) -> bool:
    """The library's isURL()."""
    return parses(to_url, text)
