"""A port of Go net/netip ParseAddr/ParsePrefix, String() and the Is* predicates."""

from __future__ import annotations

from dataclasses import dataclass

from policyeditor.engine.cel.library.errors import LibraryError, parses


class NetipError(LibraryError):
    """A netip parse error; str() is Go's text (`ParseAddr("x"): ...`)."""


def _quote(text: str) -> str:
    out = []
    for char in text:
        if char in '"\\':
            out.append("\\" + char)
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\x{ord(char):02x}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def _addr_error(text: str, msg: str, at: str = "") -> NetipError:
    tail = f" (at {_quote(at)})" if at else ""
    return NetipError(f"ParseAddr({_quote(text)}): {msg}{tail}")


@dataclass(frozen=True)
class Addr:
    """An IP address: bit length 32 or 128, the integer value, and an IPv6 zone."""

    bits: int
    value: int
    zone: str = ""

    def is4(self) -> bool:
        """True for an IPv4 address."""
        return self.bits == 32

    def is4in6(self) -> bool:
        """True for an IPv4-mapped IPv6 address (::ffff:a.b.c.d)."""
        return self.bits == 128 and self.value >> 32 == 0xFFFF

    def unmap(self) -> Addr:
        """The IPv4 address inside an IPv4-mapped IPv6 address, else itself."""
        return Addr(32, self.value & 0xFFFFFFFF) if self.is4in6() else self

    def __str__(self) -> str:
        if self.bits == 32:
            return _v4_string(self.value)
        zone = f"%{self.zone}" if self.zone else ""
        if self.is4in6():
            return "::ffff:" + _v4_string(self.value & 0xFFFFFFFF) + zone
        return _v6_string(self.value) + zone

    def is_unspecified(self) -> bool:
        """0.0.0.0 or ::."""
        return self.value == 0 and not self.zone

    def is_loopback(self) -> bool:
        """127.0.0.0/8 or ::1."""
        ip = self.unmap()
        if ip.is4():
            return ip.value >> 24 == 127
        return ip.value == 1

    def is_multicast(self) -> bool:
        """224.0.0.0/4 or ff00::/8."""
        ip = self.unmap()
        if ip.is4():
            return ip.value >> 28 == 0xE
        return ip.value >> 120 == 0xFF

    def is_link_local_multicast(self) -> bool:
        """224.0.0.0/24, or IPv6 multicast with link-local scope (ff02::, ff12::, ...)."""
        ip = self.unmap()
        if ip.is4():
            return ip.value >> 8 == 0xE00000
        return (ip.value >> 112) & 0xFF0F == 0xFF02

    def is_link_local_unicast(self) -> bool:
        """169.254.0.0/16 or fe80::/10."""
        ip = self.unmap()
        if ip.is4():
            return ip.value >> 16 == 0xA9FE
        return ip.value >> 118 == 0xFE80 >> 6

    def is_global_unicast(self) -> bool:
        """Go's IsGlobalUnicast (private IPv4 and ULA still count as global)."""
        ip = self.unmap()
        if ip.is4() and ip.value in (0, 0xFFFFFFFF):
            return False
        if not ip.is4() and ip.value == 0:
            return False
        return not ip.is_loopback() and not ip.is_multicast() and not ip.is_link_local_unicast()


def _v4_string(value: int) -> str:
    return ".".join(str((value >> shift) & 0xFF) for shift in (24, 16, 8, 0))


def _v6_string(value: int) -> str:
    groups = [(value >> (112 - 16 * i)) & 0xFFFF for i in range(8)]
    zero_start, zero_end = 255, 255
    i = 0
    while i < 8:
        j = i
        while j < 8 and groups[j] == 0:
            j += 1
        length = j - i
        if length >= 2 and length > zero_end - zero_start:
            zero_start, zero_end = i, j
        i += 1
    parts = []
    i = 0
    while i < 8:
        if i == zero_start:
            parts.append("::")
            i = zero_end
            continue
        if parts and parts[-1] != "::":
            parts.append(":")
        parts.append(f"{groups[i]:x}")
        i += 1
    return "".join(parts)


def _parse_v4_fields(text: str, off: int, end: int) -> list[int]:
    fields = [0, 0, 0, 0]
    val = pos = digits = 0
    s = text[off:end]
    for i, char in enumerate(s):
        if "0" <= char <= "9":
            if digits == 1 and val == 0:
                raise _addr_error(text, "IPv4 field has octet with leading zero")
            val = val * 10 + ord(char) - 48
            digits += 1
            if val > 255:
                raise _addr_error(text, "IPv4 field has value >255")
        elif char == ".":
            if i == 0 or i == len(s) - 1 or s[i - 1] == ".":
                raise _addr_error(text, "IPv4 field must have at least one digit", s[i:])
            if pos == 3:
                raise _addr_error(text, "IPv4 address too long")
            fields[pos] = val
            pos += 1
            val = digits = 0
        else:
            raise _addr_error(text, "unexpected character", s[i:])
    if pos < 3:
        raise _addr_error(text, "IPv4 address too short")
    fields[3] = val
    return fields


_HEX = {c: int(c, 16) for c in "0123456789abcdefABCDEF"}


def _parse_v6(text: str) -> Addr:
    s = text
    zone = ""
    if "%" in s:
        s, zone = s.split("%", 1)
        if not zone:
            raise _addr_error(text, "zone must be a non-empty string")
    ip = [0] * 16
    ellipsis = -1
    if len(s) >= 2 and s[0] == ":" and s[1] == ":":
        ellipsis = 0
        s = s[2:]
        if not s:
            return Addr(128, 0, zone)
    i = 0
    while i < 16:
        off = 0
        acc = 0
        while off < len(s):
            digit = _HEX.get(s[off])
            if digit is None:
                break
            acc = (acc << 4) + digit
            if off > 3:
                raise _addr_error(text, "each group must have 4 or less digits", s)
            if acc > 0xFFFF:
                raise _addr_error(text, "IPv6 field has value >=2^16", s)
            off += 1
        if off == 0:
            raise _addr_error(text, "each colon-separated field must have at least one digit", s)
        if off < len(s) and s[off] == ".":
            if ellipsis < 0 and i != 12:
                raise _addr_error(
                    text, "embedded IPv4 address must replace the final 2 fields of the address", s
                )
            if i + 4 > 16:
                raise _addr_error(
                    text,
                    "too many hex fields to fit an embedded IPv4 at the end of the address",
                    s,
                )
            end = len(text) - (len(zone) + 1 if zone else 0)
            ip[i : i + 4] = _parse_v4_fields(text, end - len(s), end)
            s = ""
            i += 4
            break
        ip[i] = acc >> 8
        ip[i + 1] = acc & 0xFF
        i += 2
        s = s[off:]
        if not s:
            break
        if s[0] != ":":
            raise _addr_error(text, "unexpected character, want colon", s)
        if len(s) == 1:
            raise _addr_error(text, "colon must be followed by more characters", s)
        s = s[1:]
        if s[0] == ":":
            if ellipsis >= 0:
                raise _addr_error(text, "multiple :: in address", s)
            ellipsis = i
            s = s[1:]
            if not s:
                break
    if s:
        raise _addr_error(text, "trailing garbage after address", s)
    if i < 16:
        if ellipsis < 0:
            raise _addr_error(text, "address string too short")
        n = 16 - i
        for j in range(i - 1, ellipsis - 1, -1):
            ip[j + n] = ip[j]
        for j in range(ellipsis, ellipsis + n):
            ip[j] = 0
    elif ellipsis >= 0:
        raise _addr_error(text, "the :: must expand to at least one field of zeros", s)
    return Addr(128, int.from_bytes(bytes(ip), "big"), zone)


def parse_addr(text: str) -> Addr:
    """Go netip.ParseAddr."""
    for char in text:
        if char == ".":
            fields = _parse_v4_fields(text, 0, len(text))
            return Addr(32, int.from_bytes(bytes(fields), "big"))
        if char == ":":
            return _parse_v6(text)
        if char == "%":
            raise _addr_error(text, "missing IPv6 address")
    raise _addr_error(text, "unable to parse IP")


@dataclass(frozen=True)
class Prefix:
    """An IP prefix as written: the address (host bits kept) and the prefix length."""

    addr: Addr
    bits: int

    def __str__(self) -> str:
        return f"{self.addr}/{self.bits}"

    def masked(self) -> Prefix:
        """The prefix with the host bits cleared (Go Prefix.Masked)."""
        host = self.addr.bits - self.bits
        value = (self.addr.value >> host) << host
        return Prefix(Addr(self.addr.bits, value), self.bits)

    def contains(self, ip: Addr) -> bool:
        """Go Prefix.Contains: same family, no zone, network bits equal."""
        if ip.bits != self.addr.bits or ip.zone:
            return False
        host = self.addr.bits - self.bits
        return ip.value >> host == self.addr.value >> host

    def overlaps(self, other: Prefix) -> bool:
        """Go Prefix.Overlaps."""
        if self.addr.bits != other.addr.bits:
            return False
        shared = min(self.bits, other.bits)
        if shared == 0:
            return True
        host = self.addr.bits - shared
        return self.addr.value >> host == other.addr.value >> host


def _prefix_error(text: str, msg: str) -> NetipError:
    return NetipError(f"netip.ParsePrefix({_quote(text)}): {msg}")


def parse_prefix(text: str) -> Prefix:
    """Go netip.ParsePrefix (host bits allowed)."""
    slash = text.rfind("/")
    if slash < 0:
        raise _prefix_error(text, "no '/'")
    try:
        addr = parse_addr(text[:slash])
    except NetipError as exc:
        raise _prefix_error(text, str(exc)) from None
    if addr.bits == 128 and addr.zone:
        raise _prefix_error(text, "IPv6 zones cannot be present in a prefix")
    bits_text = text[slash + 1 :]
    bad = "bad bits after slash: " + _quote(bits_text)
    if len(bits_text) > 1 and not "1" <= bits_text[0] <= "9":
        raise _prefix_error(text, bad)
    if not bits_text or not all("0" <= c <= "9" for c in bits_text.lstrip("+-")):
        raise _prefix_error(text, bad)
    if bits_text[0] in "+-" and len(bits_text) == 1:
        raise _prefix_error(text, bad)
    bits = int(bits_text)
    if bits < 0 or bits > addr.bits:
        raise _prefix_error(text, "prefix length out of range")
    return Prefix(addr, bits)


def parse_ip(text: str) -> Addr:
    """The Kubernetes ip library's parse: ParseAddr, then no zone and no IPv4-mapped IPv6."""
    try:
        addr = parse_addr(text)
    except NetipError as exc:
        raise LibraryError(
            f"IP Address {_quote(text)} parse error during conversion from string: {exc}"
        ) from None
    if addr.zone:
        raise LibraryError(f"IP address {_quote(text)} with zone value is not allowed")
    if addr.is4in6():
        raise LibraryError(f"IPv4-mapped IPv6 address {_quote(text)} is not allowed")
    return addr


def parse_cidr(text: str) -> Prefix:
    """The Kubernetes cidr library's parse (its error text carries the prefix twice, as Go's)."""
    lead = "network address parse error during conversion from string: "
    try:
        prefix = parse_prefix(text)
    except NetipError as exc:
        raise LibraryError(f"{lead}{lead}{exc}") from None
    if prefix.addr.is4in6():
        raise LibraryError(f"{lead}IPv4-mapped IPv6 address {_quote(text)} is not allowed")
    return prefix


def is_ip(text: str) -> bool:
    """isIP(string)."""
    return parses(parse_ip, text)


def is_canonical_ip(text: str) -> bool:
    """ip.isCanonical(string): the parsed address prints back as the input."""
    return str(parse_ip(text)) == text


def is_cidr(text: str) -> bool:
    """isCIDR(string)."""
    return parses(parse_cidr, text)
