"""kubernetes.net.ip and kubernetes.net.cidr: Go netip parsing, canonical forms, predicates."""

from __future__ import annotations

import pytest

from policyeditor.engine.cel.library import netip
from policyeditor.engine.cel.library.errors import LibraryError
from tests.engine.cel.library.helpers import eval_error, evaluate, library_error

IP = ("kubernetes.net.ip",)
CIDR = ("kubernetes.net.cidr",)


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("2001:0db8:0000:0000:0000:0000:0000:0001", "2001:db8::1"),
        ("1:0:0:1:0:0:0:1", "1:0:0:1::1"),
        ("2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"),
        ("0:0:0:0:0:0:0:0", "::"),
        ("FE80::ABCD", "fe80::abcd"),
        ("1:2:3:4:5:6:0:8", "1:2:3:4:5:6:0:8"),
        ("::1.2.3.4", "::102:304"),
        ("10.0.0.1", "10.0.0.1"),
    ],
)
def test_addresses_print_in_go_canonical_form(text: str, canonical: str) -> None:
    assert str(netip.parse_ip(text)) == canonical
    assert netip.is_canonical_ip(canonical)


@pytest.mark.parametrize(
    ("text", "detail"),
    [
        ("1.2.3", "IPv4 address too short"),
        ("1.2.3.4.5", "IPv4 address too long"),
        ("01.2.3.4", "IPv4 field has octet with leading zero"),
        ("256.1.1.1", "IPv4 field has value >255"),
        ("1..2.3", 'IPv4 field must have at least one digit (at ".2.3")'),
        ("1.2.3.a", 'unexpected character (at "a")'),
        ("1:2", "address string too short"),
        ("1::2::3", 'multiple :: in address (at ":3")'),
        ("12345::", 'each group must have 4 or less digits (at "12345::")'),
        ("abc", "unable to parse IP"),
        ("%eth0", "missing IPv6 address"),
        ("1:2:3:4:5:6:7:8:9", 'trailing garbage after address (at "9")'),
    ],
)
def test_parse_errors_carry_the_netip_text(text: str, detail: str) -> None:
    error = library_error(netip.parse_ip, text)
    assert str(error) == (
        f'IP Address "{text}" parse error during conversion from string: '
        f'ParseAddr("{text}"): {detail}'
    )


def test_zones_and_ipv4_mapped_addresses_are_rejected_by_kubernetes() -> None:
    with pytest.raises(LibraryError, match='IP address "fe80::1%eth0" with zone value'):
        netip.parse_ip("fe80::1%eth0")
    with pytest.raises(LibraryError, match='IPv4-mapped IPv6 address "::ffff:1.2.3.4" is not'):
        netip.parse_ip("::ffff:1.2.3.4")


def test_predicates_follow_netip() -> None:
    assert netip.parse_ip("::").is_unspecified()
    assert netip.parse_ip("127.1.2.3").is_loopback()
    assert netip.parse_ip("ff02::1").is_link_local_multicast()
    assert netip.parse_ip("ff12::1").is_link_local_multicast()  # scope bits, flags ignored
    assert not netip.parse_ip("ff05::1").is_link_local_multicast()
    assert netip.parse_ip("fe80::1").is_link_local_unicast()
    assert netip.parse_ip("169.254.1.1").is_link_local_unicast()
    assert netip.parse_ip("10.0.0.1").is_global_unicast()  # private still counts
    assert not netip.parse_ip("224.0.0.1").is_global_unicast()
    assert not netip.parse_ip("255.255.255.255").is_global_unicast()


def test_ip_values_through_cel() -> None:
    assert evaluate("ip('2001:db8::68').family()", IP) == 6
    assert evaluate("string(ip('2001:0DB8::0001'))", IP) == "2001:db8::1"
    assert evaluate("ip('::1') == ip('0:0:0:0:0:0:0:1')", IP) is True
    assert evaluate("ip.isCanonical('2001:DB8::1')", IP) is False


def test_prefix_keeps_host_bits_and_masks_on_request() -> None:
    prefix = netip.parse_cidr("192.168.1.7/24")
    assert str(prefix) == "192.168.1.7/24"
    assert str(prefix.masked()) == "192.168.1.0/24"
    assert str(netip.parse_cidr("2001:db8:1::/32").masked()) == "2001:db8::/32"


@pytest.mark.parametrize(
    ("text", "detail"),
    [
        ("192.168.0.0/", 'bad bits after slash: ""'),
        ("192.168.0.0/024", 'bad bits after slash: "024"'),
        ("192.168.0.0/33", "prefix length out of range"),
        ("192.168.0.0", "no '/'"),
        ("fe80::1%eth0/64", "IPv6 zones cannot be present in a prefix"),
        ("1.2.3/8", 'ParseAddr("1.2.3"): IPv4 address too short'),
    ],
)
def test_cidr_errors_repeat_the_kubernetes_prefix(text: str, detail: str) -> None:
    lead = "network address parse error during conversion from string: "
    error = library_error(netip.parse_cidr, text)
    assert str(error) == f'{lead}{lead}netip.ParsePrefix("{text}"): {detail}'


def test_contains_uses_the_network_bits_only() -> None:
    assert evaluate("cidr('10.0.0.0/8').containsIP('10.255.0.1')", CIDR) is True
    assert evaluate("cidr('10.0.0.0/8').containsIP(ip('11.0.0.1'))", CIDR) is False
    assert evaluate("cidr('10.0.0.0/8').containsIP('::1')", CIDR) is False
    assert evaluate("cidr('10.0.0.0/8').containsCIDR('10.1.0.0/16')", CIDR) is True
    assert evaluate("cidr('10.1.0.0/16').containsCIDR('10.0.0.0/8')", CIDR) is False
    assert evaluate("cidr('0.0.0.0/0').containsCIDR(cidr('192.168.0.0/16'))", CIDR) is True


def test_cidr_equality_includes_the_host_bits() -> None:
    assert evaluate("cidr('192.168.0.1/24') == cidr('192.168.0.1/24').masked()", CIDR) is False
    assert evaluate("cidr('192.168.0.1/24').ip() == ip('192.168.0.1')", CIDR) is True
    assert evaluate("cidr('192.168.0.1/24').prefixLength()", CIDR) == 24


def test_contains_ip_with_a_bad_string_is_a_runtime_error() -> None:
    error = eval_error("cidr('10.0.0.0/8').containsIP('10.0.0')", CIDR)
    assert 'IP Address "10.0.0" parse error' in str(error)


def test_string_of_a_cidr_runs_through_the_shared_string_slot() -> None:
    # string(cidr) cannot be declared next to string(ip) (see cidr_decls); through dyn it runs
    names = ("kubernetes.net.cidr",)
    assert evaluate("string(dyn(cidr('10.1.2.3/8')))", names) == "10.1.2.3/8"
    assert evaluate("string(dyn(ip('0:0::1')))", names) == "::1"
