"""CEL declarations of kubernetes.quantity."""

from __future__ import annotations

from policyeditor.engine.cel.library import quantity as q
from policyeditor.engine.cel.library.decls import Spec, comparison_specs
from policyeditor.engine.cel.library.types import QUANTITY, QuantityFields, QuantityMessage


def quantity_message(value: q.Quantity) -> object:
    """The CEL value of a quantity (normalized: equal quantities are equal messages)."""
    return QuantityMessage(mantissa=str(value.mantissa), exponent=value.exponent)


def quantity_of(message: QuantityFields) -> q.Quantity:
    """The quantity inside a CEL value."""
    return q.Quantity(int(message.mantissa or "0"), message.exponent)


def _parse(text: str) -> object:
    return quantity_message(q.parse_quantity(text))


def _operand(value: QuantityFields | int) -> q.Quantity:
    # an int operand is a plain decimal quantity (resource.NewQuantity(n, DecimalSI))
    if isinstance(value, int):
        return q.Quantity.of(value, 0)
    return quantity_of(value)


def _add(left: QuantityFields, right: QuantityFields | int) -> object:
    return quantity_message(quantity_of(left).add(_operand(right)))


def _sub(left: QuantityFields, right: QuantityFields | int) -> object:
    return quantity_message(quantity_of(left).sub(_operand(right)))


def _compare(left: QuantityFields, right: QuantityFields) -> int:
    return quantity_of(left).compare(quantity_of(right))


def specs(version: int) -> list[Spec]:
    """All overloads of the library."""
    Q = QUANTITY
    return [
        Spec("quantity", "string_to_quantity", ("string",), Q, False, _parse),
        Spec("isQuantity", "is_quantity_string", ("string",), "bool", False, q.is_quantity),
        Spec("sign", "quantity_sign", (Q,), "int", False, lambda m: quantity_of(m).sign()),
        *comparison_specs("quantity", Q, _compare),
        Spec("add", "quantity_add", (Q, Q), Q, True, _add),
        Spec("add", "quantity_add_int", (Q, "int"), Q, True, _add),
        Spec("sub", "quantity_sub", (Q, Q), Q, True, _sub),
        Spec("sub", "quantity_sub_int", (Q, "int"), Q, True, _sub),
        Spec(
            "isInteger",
            "quantity_is_integer",
            (Q,),
            "bool",
            True,
            lambda m: quantity_of(m).as_int64() is not None,
        ),
        Spec(
            "asInteger",
            "quantity_get_integer",
            (Q,),
            "int",
            True,
            lambda m: q.as_integer(quantity_of(m)),
        ),
        Spec(
            "asApproximateFloat",
            "quantity_get_float",
            (Q,),
            "double",
            True,
            lambda m: quantity_of(m).approximate_float(),
        ),
    ]
