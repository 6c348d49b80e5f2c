"""Property tests: canonical forms and orderings agree with independent references."""

from __future__ import annotations

import ipaddress
from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from policyeditor.engine.cel.library import netip, quantity, semver

_V6 = st.integers(min_value=0, max_value=2**128 - 1).filter(lambda v: v >> 32 != 0xFFFF)


@given(_V6)
def test_ipv6_canonical_form_matches_rfc5952_as_python_prints_it(value: int) -> None:
    expected = ipaddress.IPv6Address(value).compressed
    assert str(netip.parse_ip(expected)) == expected
    assert str(netip.parse_ip(ipaddress.IPv6Address(value).exploded)) == expected


@given(st.integers(min_value=0, max_value=2**32 - 1))
def test_ipv4_round_trips(value: int) -> None:
    text = str(ipaddress.IPv4Address(value))
    assert str(netip.parse_ip(text)) == text


@given(_V6, st.integers(min_value=0, max_value=128), _V6)
def test_prefix_containment_matches_ipaddress(network: int, bits: int, other: int) -> None:
    net = ipaddress.IPv6Network((network, bits), strict=False)
    prefix = netip.parse_cidr(f"{ipaddress.IPv6Address(network).compressed}/{bits}")
    assert str(prefix.masked()) == net.compressed
    assert prefix.contains(netip.parse_ip(ipaddress.IPv6Address(other).compressed)) == (
        ipaddress.IPv6Address(other) in net
    )


_SUFFIX = st.sampled_from(["", "m", "k", "M", "G", "Ki", "Mi", "Gi", "e3", "e-2"])


@given(st.integers(min_value=0, max_value=10**12), st.integers(0, 6), _SUFFIX, _SUFFIX)
def test_quantity_compare_agrees_with_exact_arithmetic(
    number: int, decimals: int, left_suffix: str, right_suffix: str
) -> None:
    digits = str(number)
    text = digits if not decimals else f"{digits}.{'5' * decimals}"
    left = quantity.parse_quantity(text + left_suffix)
    right = quantity.parse_quantity(text + right_suffix)
    diff = left.fraction() - right.fraction()
    assert left.compare(right) == (diff > 0) - (diff < 0)
    assert (left == right) == (diff == 0)
    assert left.add(right).fraction() == left.fraction() + right.fraction()
    assert isinstance(left.fraction(), Fraction)


_IDENT = st.from_regex(r"[0-9A-Za-z-]{1,6}", fullmatch=True).filter(
    lambda s: not (s.isdigit() and len(s) > 1 and s[0] == "0")
)


@given(
    st.integers(0, 10**6),
    st.integers(0, 10**6),
    st.integers(0, 10**6),
    st.lists(_IDENT, max_size=3),
    st.lists(_IDENT, max_size=2),
)
def test_semver_round_trips_and_ignores_build(
    major: int, minor: int, patch: int, pre: list[str], build: list[str]
) -> None:
    text = f"{major}.{minor}.{patch}"
    if pre:
        text += "-" + ".".join(pre)
    parsed = semver.parse(text + ("+" + ".".join(build) if build else ""))
    assert (parsed.major, parsed.minor, parsed.patch) == (major, minor, patch)
    assert parsed.compare(semver.parse(text)) == 0
