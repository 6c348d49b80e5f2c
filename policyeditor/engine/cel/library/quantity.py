"""apimachinery resource.ParseQuantity and Quantity arithmetic, exact, for kubernetes.quantity."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from policyeditor.engine.cel.library.errors import LibraryError, parses

SPLIT_RE = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"
ERR_FORMAT = f"quantities must match the regular expression '{SPLIT_RE}'"
ERR_SUFFIX = "unable to parse quantity's suffix"
ERR_NUMERIC = "unable to parse numeric part of quantity"
INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)

_BINARY = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_DIGITS = frozenset("0123456789")


@dataclass(frozen=True)
class Quantity:
    """An exact quantity: mantissa * 10**exponent, normalized (mantissa has no trailing zeros)."""

    mantissa: int
    exponent: int

    @staticmethod
    def of(mantissa: int, exponent: int) -> Quantity:
        """A normalized quantity."""
        if mantissa == 0:
            return Quantity(0, 0)
        while mantissa % 10 == 0:
            mantissa //= 10
            exponent += 1
        return Quantity(mantissa, exponent)

    @staticmethod
    def from_fraction(value: Fraction) -> Quantity:
        """A quantity equal to a fraction whose denominator has only 2s and 5s."""
        numerator, denominator = value.numerator, value.denominator
        exponent = 0
        while denominator != 1:
            numerator *= 10
            exponent -= 1
            common = Fraction(numerator, denominator)
            numerator, denominator = common.numerator, common.denominator
            if exponent < -400:
                raise LibraryError(ERR_NUMERIC)
        return Quantity.of(numerator, exponent)

    def fraction(self) -> Fraction:
        """The exact value."""
        return Fraction(self.mantissa) * (Fraction(10) ** self.exponent)

    def compare(self, other: Quantity) -> int:
        """-1, 0 or 1 (Go Quantity.Cmp)."""
        left, right = self.fraction(), other.fraction()
        return (left > right) - (left < right)

    def sign(self) -> int:
        """-1, 0 or 1."""
        return (self.mantissa > 0) - (self.mantissa < 0)

    def as_int64(self) -> int | None:
        """The value as an int64 when it is integral and fits (Go AsInt64), else None."""
        if self.exponent < 0:
            return None
        value = self.mantissa * 10**self.exponent
        return value if INT64_MIN <= value <= INT64_MAX else None

    def approximate_float(self) -> float:
        """Go AsApproximateFloat64 (exact-then-rounded here; Go may differ in the last digit)."""
        try:
            return float(self.fraction())
        except OverflowError:
            return float("inf") if self.mantissa > 0 else float("-inf")

    def add(self, other: Quantity) -> Quantity:
        """self + other, exact."""
        return Quantity.from_fraction(self.fraction() + other.fraction())

    def sub(self, other: Quantity) -> Quantity:
        """self - other, exact."""
        return Quantity.from_fraction(self.fraction() - other.fraction())


def _parse_string(text: str) -> tuple[bool, str, str, str, str]:
    """Go parseQuantityString: (positive, value, numerator, denominator, suffix)."""
    positive = True
    pos, end = 0, len(text)
    if pos < end and text[0] in "+-":
        positive = text[0] == "+"
        pos += 1
    while True:
        if pos >= end:
            return positive, "0", "0", "", ""
        if text[pos] != "0":
            break
        pos += 1
    start = pos
    while pos < end and text[pos] in _DIGITS:
        pos += 1
    if pos >= end:
        return positive, text, text[start:], "", ""
    numerator = text[start:pos] or "0"
    denominator = ""
    if text[pos] == ".":
        pos += 1
        start = pos
        while pos < end and text[pos] in _DIGITS:
            pos += 1
        denominator = text[start:pos]
        if pos >= end:
            return positive, text, numerator, denominator, ""
    value = text[:pos]
    suffix_start = pos
    while pos < end and text[pos] in "eEinumkKMGTP":
        pos += 1
    if pos >= end:
        return positive, value, numerator, denominator, text[suffix_start:]
    if text[pos] in "+-":
        pos += 1
    while pos < end and text[pos] in _DIGITS:
        pos += 1
    if pos < end:
        raise LibraryError(ERR_FORMAT)
    return positive, value, numerator, denominator, text[suffix_start:]


def _interpret(suffix: str) -> tuple[int, int, str]:
    """(base, exponent, format) of a suffix; LibraryError(ERR_SUFFIX) if unknown."""
    if suffix in _DECIMAL:
        return 10, _DECIMAL[suffix], "DecimalSI"
    if suffix in _BINARY:
        return 2, _BINARY[suffix], "BinarySI"
    if len(suffix) > 1 and suffix[0] in "eE":
        digits = suffix[1:]
        body = digits[1:] if digits[:1] in "+-" else digits
        if body and all(c in _DIGITS for c in body):
            return 10, int(digits), "DecimalExponent"
    raise LibraryError(ERR_SUFFIX)


def _round_up_to_nano(value: Fraction) -> Fraction:
    # Go rounds any non-zero amount *away from zero* to 1e-9 ("if you want some resources...")
    scaled = value * 10**9
    if scaled.denominator == 1:
        return value
    magnitude = -(-abs(scaled.numerator) // scaled.denominator)
    return Fraction(magnitude if value > 0 else -magnitude, 10**9)


def parse_quantity(text: str) -> Quantity:
    """Go resource.ParseQuantity; LibraryError with apimachinery's message when invalid."""
    if not text:
        raise LibraryError(ERR_FORMAT)
    if text == "0":
        return Quantity(0, 0)
    positive, value, numerator, denominator, suffix = _parse_string(text)
    base, exponent, fmt = _interpret(suffix)
    digits = value.lstrip("+-")
    if digits.count(".") > 1 or not digits.replace(".", "", 1).isdigit() and digits != ".":
        raise LibraryError(ERR_NUMERIC)
    whole, _, frac = digits.partition(".")
    amount = Fraction(int(whole or "0") * 10 ** len(frac) + int(frac or "0"), 10 ** len(frac))
    if value.startswith("-"):
        amount = -amount
    amount = amount * (Fraction(10) ** exponent if base == 10 else Fraction(2) ** exponent)
    amount = _round_up_to_nano(amount)
    if fmt == "BinarySI" and abs(amount) > INT64_MAX:
        amount = Fraction(INT64_MAX if amount > 0 else -INT64_MAX)
    del positive, numerator, denominator  # parsed for Go's fast path; the value is the same
    return Quantity.from_fraction(amount)


def is_quantity(text: str) -> bool:
    """isQuantity(string)."""
    return parses(parse_quantity, text)


def as_integer(quantity: Quantity) -> int:
    """asInteger(): error `cannot convert value to integer` when not an int64."""
    value = quantity.as_int64()
    if value is None:
        raise LibraryError("cannot convert value to integer")
    return value
