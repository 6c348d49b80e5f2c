"""CEL declarations of kubernetes.net.ip: ip(), isIP(), ip.isCanonical() and the IP methods."""

from __future__ import annotations

from collections.abc import Callable

from policyeditor.engine.cel.library import netip
from policyeditor.engine.cel.library.decls import Spec
from policyeditor.engine.cel.library.types import IP, IPFields, IPMessage


def ip_message(addr: netip.Addr) -> object:
    """The CEL value of an address (its canonical text: equality is address equality)."""
    return IPMessage(addr=str(addr))


def addr_of(message: IPFields) -> netip.Addr:
    """The address inside an IP value."""
    return netip.parse_addr(message.addr)


def _ip(text: str) -> object:
    return ip_message(netip.parse_ip(text))


def _method(read: Callable[[netip.Addr], object]) -> Callable[[IPFields], object]:
    return lambda message: read(addr_of(message))


def specs(version: int) -> list[Spec]:
    """All overloads of the library."""
    return [
        Spec("ip", "string_to_ip", ("string",), IP, False, _ip),
        Spec("isIP", "is_ip", ("string",), "bool", False, netip.is_ip),
        Spec(
            "ip.isCanonical", "ip_is_canonical", ("string",), "bool", False, netip.is_canonical_ip
        ),
        Spec("family", "ip_family", (IP,), "int", True, _method(lambda a: 4 if a.is4() else 6)),
        Spec(
            "isUnspecified",
            "ip_is_unspecified",
            (IP,),
            "bool",
            True,
            _method(netip.Addr.is_unspecified),
        ),
        Spec("isLoopback", "ip_is_loopback", (IP,), "bool", True, _method(netip.Addr.is_loopback)),
        Spec(
            "isLinkLocalMulticast",
            "ip_is_link_local_multicast",
            (IP,),
            "bool",
            True,
            _method(netip.Addr.is_link_local_multicast),
        ),
        Spec(
            "isLinkLocalUnicast",
            "ip_is_link_local_unicast",
            (IP,),
            "bool",
            True,
            _method(netip.Addr.is_link_local_unicast),
        ),
        Spec(
            "isGlobalUnicast",
            "ip_is_global_unicast",
            (IP,),
            "bool",
            True,
            _method(netip.Addr.is_global_unicast),
        ),
        # `string` is a stdlib function: merged through the CelExtension path
        Spec("string", "ip_to_string", (IP,), "string", False, lambda m: m.addr, extension=True),
    ]
