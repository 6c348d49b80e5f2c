"""kubernetes.quantity: apimachinery ParseQuantity, exact comparison and arithmetic."""

from __future__ import annotations

import pytest

from policyeditor.engine.cel.library import quantity as q
from policyeditor.engine.cel.library.errors import LibraryError
from tests.engine.cel.library.helpers import EvalError, eval_error, evaluate

QUANTITY = ("kubernetes.quantity",)


def _value(text: str) -> q.Quantity:
    return q.parse_quantity(text)


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ("200M", "0.2G"),
        ("1Ki", "1024"),
        ("1e3", "1k"),
        ("1000m", "1"),
        ("0.5", "500m"),
        ("1E", "1e18"),
    ],
)
def test_equal_quantities_across_units(left: str, right: str) -> None:
    assert _value(left) == _value(right)
    assert _value(left).compare(_value(right)) == 0


def test_binary_suffixes_are_larger_than_decimal_ones() -> None:
    assert _value("50M").compare(_value("50Mi")) == -1
    assert _value("1Gi").compare(_value("1G")) == 1


def test_sub_nano_amounts_round_away_from_zero() -> None:
    assert _value("0.1n") == _value("1n")
    assert _value("-0.0000000001") == _value("-1n")


def test_binary_si_is_capped_at_int64_max() -> None:
    assert _value("100Ei").as_int64() == 2**63 - 1


def test_huge_decimal_quantities_are_exact_but_not_integers() -> None:
    huge = _value("9999999999999999999999999999999999999G")
    assert huge.as_int64() is None
    assert huge.compare(_value("1E")) == 1


@pytest.mark.parametrize("text", ["", "abc", "1.2.3", "5KB", "1 Gi"])
def test_malformed_quantities_name_the_expected_regular_expression(text: str) -> None:
    with pytest.raises(LibraryError, match="quantities must match the regular expression"):
        q.parse_quantity(text)


@pytest.mark.parametrize("text", ["10Mm", "1e", "1Ki2", "--1"])
def test_unknown_suffixes_are_suffix_errors(text: str) -> None:
    with pytest.raises(LibraryError, match="unable to parse quantity's suffix"):
        q.parse_quantity(text)


def test_is_quantity_does_not_raise() -> None:
    assert q.is_quantity("1.5Gi")
    assert not q.is_quantity("1.5GB")


def test_integer_conversions() -> None:
    assert evaluate("quantity('1.5k').asInteger()", QUANTITY) == 1500
    assert evaluate("quantity('1.5').isInteger()", QUANTITY) is False
    assert evaluate("quantity('1.5').asApproximateFloat()", QUANTITY) == 1.5
    with pytest.raises(EvalError, match="cannot convert value to integer"):
        evaluate("quantity('1.5').asInteger()", QUANTITY)


def test_sign_is_a_global_function() -> None:
    assert evaluate("sign(quantity('-5m'))", QUANTITY) == -1
    assert evaluate("sign(quantity('0'))", QUANTITY) == 0
    error = eval_error("quantity('1').sign()", QUANTITY)
    assert error.phase == "compile"


def test_arithmetic_is_exact_and_accepts_ints() -> None:
    assert evaluate("quantity('50k').sub(20) == quantity('49980')", QUANTITY) is True
    assert evaluate("quantity('1Gi').add(quantity('1Gi')) == quantity('2Gi')", QUANTITY) is True
    assert evaluate("quantity('0.1').add(quantity('0.2')) == quantity('0.3')", QUANTITY) is True


def test_comparisons_through_cel() -> None:
    assert evaluate("quantity('150Mi').isGreaterThan(quantity('100Mi'))", QUANTITY) is True
    assert evaluate("quantity('1').isLessThan(quantity('1000m'))", QUANTITY) is False
    assert evaluate("quantity('2').compareTo(quantity('1'))", QUANTITY) == 1


def test_a_bad_quantity_is_a_runtime_error() -> None:
    error = eval_error("quantity(object.q).isInteger()", QUANTITY, {"object": {"q": "1Mm"}})
    assert error.phase == "runtime"
    assert "unable to parse quantity's suffix" in str(error)
