"""Runtime costs of library calls (apiserver pkg/cel/library/cost.go, CostEstimator.CallCost)."""

from __future__ import annotations

from policyeditor.engine.cel.library import cost
from policyeditor.engine.cel.library.types import CIDRMessage, FormatMessage


def test_an_authorization_check_costs_350000() -> None:
    assert cost.call_cost("check", []) == 350_000
    assert cost.call_cost("allowed", []) == 1


def test_regex_cost_multiplies_text_and_pattern_factors() -> None:
    # ceil(0.1 * (1 + 99)) * ceil(0.25 * 8)
    assert cost.call_cost("find", ["x" * 99, "[0-9]+xx"]) == 10 * 2


def test_parsing_functions_cost_a_tenth_per_byte() -> None:
    assert cost.call_cost("quantity", ["1234567890k"]) == 2
    assert cost.call_cost("ip", ["10.0.0.1"]) == 1
    assert cost.call_cost("ip", [CIDRMessage(addr="10.0.0.1", bits=8)]) == 1
    assert cost.call_cost("ip.isCanonical", ["2001:db8::1"]) == 3


def test_list_functions_cost_the_traversal_of_the_receiver() -> None:
    assert cost.call_cost("sum", [[1, 2, 3]]) == 3
    assert cost.call_cost("indexOf", [["a" * 100, "b" * 100], "a"]) == 20


def test_validate_uses_the_format_max_regex_size() -> None:
    # ceil(0.1 * (1 + 9)) * ceil(0.25 * 30) for dns1123Label
    assert cost.call_cost("validate", [FormatMessage(name="dns1123Label"), "my-name12"]) == 8


def test_contains_costs_grow_with_the_prefix_bytes_as_cidr_size_counts_them() -> None:
    # apiserver cel.CIDR.Size() is ceil(prefix bits / 8), not the address length
    v4 = CIDRMessage(addr="10.0.0.0", bits=8)
    v6 = CIDRMessage(addr="2001:db8::", bits=128)
    # ceil(0.1 * (1 + 1)) + ceil(0.1 * 8) for the string operand
    assert cost.call_cost("containsIP", [v4, "10.0.0.1"]) == 1 + 1
    # ceil(0.1 * (16 + 16)) + ceil(0.1 * 8)
    assert cost.call_cost("containsIP", [v6, "10.0.0.1"]) == 4 + 1
    assert cost.call_cost("containsCIDR", [v4, v4]) == 1 + 1 + 1


def test_unknown_functions_are_left_to_the_default_model() -> None:
    assert cost.call_cost("size", [[1]]) is None
    assert cost.call_cost("string", ["x"]) is None
