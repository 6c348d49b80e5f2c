"""CEL declarations of kubernetes.net.cidr: cidr(), isCIDR() and the CIDR methods."""

from __future__ import annotations

from policyeditor.engine.cel.library import netip
from policyeditor.engine.cel.library.decls import Spec
from policyeditor.engine.cel.library.ip_decls import addr_of, ip_message
from policyeditor.engine.cel.library.types import CIDR, IP, CIDRFields, CIDRMessage, IPFields


def cidr_message(prefix: netip.Prefix) -> object:
    """The CEL value of a prefix (address as written, canonical text, and length)."""
    return CIDRMessage(addr=str(prefix.addr), bits=prefix.bits)


def prefix_of(message: CIDRFields) -> netip.Prefix:
    """The prefix inside a CIDR value."""
    return netip.Prefix(netip.parse_addr(message.addr), message.bits)


def _cidr(text: str) -> object:
    return cidr_message(netip.parse_cidr(text))


def _contains_ip(cidr: CIDRFields, ip: IPFields | str) -> bool:
    addr = netip.parse_ip(ip) if isinstance(ip, str) else addr_of(ip)
    return prefix_of(cidr).contains(addr)


def _contains_cidr(cidr: CIDRFields, other: CIDRFields | str) -> bool:
    inner = netip.parse_cidr(other) if isinstance(other, str) else prefix_of(other)
    outer = prefix_of(cidr)
    return outer.overlaps(inner) and outer.bits <= inner.bits


def _cidr_string(message: CIDRFields) -> str:
    return str(prefix_of(message))


def specs(version: int) -> list[Spec]:
    """All overloads of the library."""
    return [
        Spec("cidr", "string_to_cidr", ("string",), CIDR, False, _cidr),
        Spec("isCIDR", "is_cidr", ("string",), "bool", False, netip.is_cidr),
        Spec("containsIP", "cidr_contains_ip_ip", (CIDR, IP), "bool", True, _contains_ip),
        Spec("containsIP", "cidr_contains_ip_string", (CIDR, "string"), "bool", True, _contains_ip),
        Spec("containsCIDR", "cidr_contains_cidr", (CIDR, CIDR), "bool", True, _contains_cidr),
        Spec(
            "containsCIDR",
            "cidr_contains_cidr_string",
            (CIDR, "string"),
            "bool",
            True,
            _contains_cidr,
        ),
        Spec("ip", "cidr_ip", (CIDR,), IP, True, lambda m: ip_message(prefix_of(m).addr)),
        Spec(
            "masked",
            "cidr_masked",
            (CIDR,),
            CIDR,
            True,
            lambda m: cidr_message(prefix_of(m).masked()),
        ),
        Spec("prefixLength", "cidr_prefix_length", (CIDR,), "int", True, lambda m: m.bits),
        # cel-expr-python gives string(net.IP) and string(net.CIDR) one runtime slot: with both
        # libraries the checker knows this one by an alias (registry.Alias, cel/aliases.py).
        Spec("string", "cidr_to_string", (CIDR,), "string", False, _cidr_string, extension=True),
    ]
