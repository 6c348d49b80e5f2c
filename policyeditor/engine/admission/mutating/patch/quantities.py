"""Quantity and IntOrString fields of a mutated built-in object, re-encoded as the API server's decoding does.

After a mutation kube-apiserver turns the patched object back into its Go type (JSONPatch: strict
JSON decoding; ApplyConfiguration: runtime.DefaultUnstructuredConverter.FromUnstructured in
ConvertToVersion) and serializes it again, so every resource.Quantity goes through
ParseQuantity and comes out in its canonical form ("0.5" -> "500m", 1 -> "1"), and every
intstr.IntOrString through IntOrString.UnmarshalJSON. Custom resources stay unstructured and are
not touched.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

from policyeditor.engine import schemas
from policyeditor.engine.cel.library.errors import LibraryError
from policyeditor.engine.cel.library.quantity import SPLIT_RE, parse_quantity
from policyeditor.engine.versions import DEFAULT_VERSION

QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"
INT_OR_STRING = "io.k8s.apimachinery.pkg.util.intstr.IntOrString"

_SPLIT = re.compile(SPLIT_RE)
_BINARY = {"Ki", "Mi", "Gi", "Ti", "Pi", "Ei"}
# k8s.io/apimachinery pkg/api/resource suffix.go, newSuffixer: decimal SI suffixes by exponent.
_DECIMAL_SUFFIX = {
    -9: "n",
    -6: "u",
    -3: "m",
    0: "",
    3: "k",
    6: "M",
    9: "G",
    12: "T",
    15: "P",
    18: "E",
}
_BINARY_SUFFIX = {0: "", 10: "Ki", 20: "Mi", 30: "Gi", 40: "Ti", 50: "Pi", 60: "Ei"}


class QuantityError(ValueError):
    """A Quantity or IntOrString field that does not decode; str() is the Go error text."""


def _format(text: str, amount: Fraction) -> str:
    """The Format ParseQuantity gives: from the suffix, BinarySI below 1 becoming DecimalSI."""
    match = _SPLIT.match(text)
    suffix = match.group(2) if match else ""
    if suffix in _BINARY:
        # quantity.go ParseQuantity: "This avoids rounding and hopefully confusion, too."
        return "DecimalSI" if 0 < abs(amount) < 1 else "BinarySI"
    if suffix[:1] in ("e", "E"):
        return "DecimalExponent"
    return "DecimalSI"


def _json_text(value: Any) -> str:
    """The JSON text Go's UnmarshalJSON receives for a decoded scalar."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return str(int(value))  # encoding/json writes integral floats without ".0"
    return str(value)


def canonical_quantity(value: Any) -> str:
    """The canonical string of a Quantity JSON value (quantity.go CanonicalizeBytes)."""
    # Quantity.UnmarshalJSON: strings are unquoted, anything else parsed from its JSON text,
    # then strings.TrimSpace and ParseQuantity.
    text = (value if isinstance(value, str) else _json_text(value)).strip()
    try:
        quantity = parse_quantity(text)
    except LibraryError as exc:
        raise QuantityError(str(exc)) from None
    if quantity.mantissa == 0:
        return "0"
    amount = quantity.fraction()
    fmt = _format(text, amount)
    if fmt == "BinarySI":
        if -1024 < amount < 1024 or amount.denominator != 1:
            fmt = "DecimalSI"  # CanonicalizeBytes: small or fractional BinarySI shows as DecimalSI
        else:
            number, times = abs(amount.numerator), 0
            while number >= 1024 and number % 1024 == 0:
                number //= 1024
                times += 1
            sign = "-" if amount < 0 else ""
            return f"{sign}{number}{_BINARY_SUFFIX[times * 10]}"
    # AsCanonicalBytes: factors of ten moved into the exponent, which is then lowered to a
    # multiple of three (Go's switch on exponent % 3 is a floor for both signs).
    mantissa, exponent = quantity.mantissa, quantity.exponent
    shift = exponent % 3
    mantissa, exponent = mantissa * 10**shift, exponent - shift
    if fmt == "DecimalExponent":
        return f"{mantissa}" if exponent == 0 else f"{mantissa}e{exponent}"
    # Go ignores the lookup's ok flag: an exponent past "E" gets no suffix at all.
    return f"{mantissa}{_DECIMAL_SUFFIX.get(exponent, '')}"


def _int_or_string(value: Any) -> Any:
    """IntOrString.UnmarshalJSON: a string, or a JSON number that fits an int32."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool) or not isinstance(value, int | float):
        kind = "bool" if isinstance(value, bool) else "object"
        raise QuantityError(f"json: cannot unmarshal {kind} into Go value of type int32")
    if isinstance(value, float) and not value.is_integer():
        raise QuantityError(
            f"json: cannot unmarshal number {_json_text(value)} into Go value of type int32"
        )
    number = int(value)
    if not -(2**31) <= number < 2**31:
        raise QuantityError(f"json: cannot unmarshal number {number} into Go value of type int32")
    return number


def _ref_name(raw: Any) -> str:
    ref = raw.get("$ref") if isinstance(raw, dict) else None
    return ref.rsplit("/", 1)[-1] if isinstance(ref, str) else ""


def _walk(value: Any, schema: dict[str, Any] | None, raw: Any, version: str) -> Any:
    name = _ref_name(raw)
    if name == QUANTITY:
        return None if value is None else canonical_quantity(value)
    if name == INT_OR_STRING:
        return _int_or_string(value)
    if schema is None or value is None:
        return value
    if isinstance(value, dict) and schemas.is_object_schema(schema):
        properties = schema.get("properties")
        additional = schema.get("additionalProperties")
        out: dict[str, Any] = {}
        for key, item in value.items():
            if isinstance(properties, dict) and key in properties:
                field_raw = properties[key]
            elif isinstance(additional, dict):
                field_raw = additional
            else:
                out[key] = item  # preserved unknown fields: left as they are
                continue
            child = schemas.child_schema(schema, key, version)
            out[key] = _walk(item, child, field_raw, version)
        return out
    if isinstance(value, list) and schemas.is_array_schema(schema):
        element = schemas.items_schema(schema, version)
        raw_items = schema.get("items")
        return [_walk(item, element, raw_items, version) for item in value]
    return value


def canonicalize(
    obj: Any, schema: dict[str, Any] | None, *, k8s_version: str = DEFAULT_VERSION
) -> Any:
    """`obj` with its Quantity fields canonical and IntOrString fields checked; QuantityError if not."""
    return _walk(obj, schema, None, k8s_version)
