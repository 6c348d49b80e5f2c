"""`string.format(list)` exactly as kube-apiserver's cel-go formats it, per Kubernetes version.

Kubernetes enables the strings extension at version 2, whose `format` is cel-go's first formatter
(google/cel-go ext/formatting.go: parseFormatString, stringFormatter, clauseForType, formatList,
formatMap, quoteForCEL; tests in ext/strings_test.go TestStringFormat). cel-expr-python's own
formatter follows cel-go's later one (formatting_v2.go: lists as `[1, a]`), so every clause is
rendered here:
- `%s`: scalars as CEL's string conversion; lists and maps as CEL literals (strings and bytes
  quoted, doubles `%.6f`, timestamps `timestamp("...")`, map entries `k:v` sorted by key);
- `%d %b %o %x %X`: Go's fmt verbs; `%x` of strings and bytes is their hex bytes;
- `%f`, `%e`: golang.org/x/text's message printer in the default locale en_US (digit grouping,
  `∞`, superscript exponent). cel-go builds `%<n>e` from `%.<n>e`, a width and not a precision,
  so `%e` always has six fraction digits; the `×` of the exponent is surrounded by narrow no-break
  spaces up to Kubernetes 1.32 (features.scientific_times).
"""

from __future__ import annotations

import datetime
import math
import types
from typing import Any

import cel_expr_python.cel as cel

from policyeditor.engine.apimachinery import go_quote
from policyeditor.engine.cel import features

_DEFAULT_PRECISION = 6
_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")
_SPECIAL_DOUBLES = ("NaN", "Infinity", "-Infinity")
_TYPE_NAMES = {
    "INT": "int",
    "UINT": "uint",
    "DOUBLE": "double",
    "BOOL": "bool",
    "STRING": "string",
    "BYTES": "bytes",
    "NULL": "null_type",
    "DURATION": "google.protobuf.Duration",
    "TIMESTAMP": "google.protobuf.Timestamp",
    "DYN": "dyn",
    "TYPE": "type",
}


class FormatError(ValueError):
    """A format failure, worded as cel-go's (`error during formatting: ...`)."""


# Python class -> the CEL type name cel-go prints, in order (bool first: it is an int in Python).
_VALUE_TYPES: tuple[tuple[type | types.UnionType, str], ...] = (
    (types.NoneType, "null_type"),
    (bool, "bool"),
    (int, "int"),
    (float, "double"),
    (str, "string"),
    (bytes | bytearray, "bytes"),
    (list, "list"),
    (dict, "map"),
    (datetime.timedelta, "google.protobuf.Duration"),
    (datetime.datetime, "google.protobuf.Timestamp"),
    (cel.Type, "type"),
)


def _type_name(value: Any) -> str:
    """The CEL type name cel-go's errors print for value."""
    for cls, name in _VALUE_TYPES:
        if isinstance(value, cls):
            return name
    return getattr(getattr(value, "DESCRIPTOR", None), "full_name", type(value).__name__)


def _cel_type_name(value: cel.Type) -> str:
    name: str = value.name()
    if name in _TYPE_NAMES:
        return _TYPE_NAMES[name]
    head = name.split("<", 1)[0]
    return {"LIST": "list", "MAP": "map"}.get(head, name)


def _go_double(value: float) -> str:
    """strconv.FormatFloat(v, 'g', -1, 64): CEL's string(double) (cel-go common/types/double.go)."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    sign = "-" if math.copysign(1.0, value) < 0 else ""
    if value == 0:
        return sign + "0"
    # The shortest digits that read back as value (Python's repr and Go's shortest agree).
    mantissa, _, exponent = repr(abs(value)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = (whole + fraction).lstrip("0")
    point = len(whole) + (int(exponent) if exponent else 0) - (len(whole + fraction) - len(digits))
    digits = digits.rstrip("0")
    power = point - 1
    if power < -4 or power >= 6:  # strconv's %g choice for the shortest form (eprec = 6)
        head = digits[0] + (f".{digits[1:]}" if len(digits) > 1 else "")
        return f"{sign}{head}e{'-' if power < 0 else '+'}{abs(power):02d}"
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return sign + digits + "0" * (point - len(digits))
    return f"{sign}{digits[:point]}.{digits[point:]}"


def _duration_text(value: datetime.timedelta) -> str:
    # types.Duration ConvertToType(String): strconv.FormatFloat(seconds, 'f', -1, 64) + "s"
    micros = (value.days * 86400 + value.seconds) * 1_000_000 + value.microseconds
    seconds, fraction = divmod(abs(micros), 1_000_000)
    text = f"{seconds}.{fraction:06d}".rstrip("0").rstrip(".") if fraction else str(seconds)
    return ("-" if micros < 0 else "") + text + "s"


def _timestamp_text(value: datetime.datetime) -> str:
    # types.Timestamp ConvertToType(String): time.RFC3339Nano in UTC
    moment = value.astimezone(datetime.UTC) if value.tzinfo else value
    text = moment.strftime("%Y-%m-%dT%H:%M:%S")
    if moment.microsecond:
        text += f".{moment.microsecond:06d}".rstrip("0")
    return text + "Z"


def _bytes_text(value: bytes | bytearray) -> str:
    # string(bytes) in Go keeps invalid UTF-8 as is; a Python str has no such bytes.
    return bytes(value).decode("utf-8", errors="replace")


def _quote_bytes(value: bytes | bytearray) -> str:
    """Go's %q of string(bytes): invalid UTF-8 bytes as \\xNN."""
    text = bytes(value).decode("utf-8", errors="surrogateescape")
    quoted = go_quote(text)
    for code in range(0xDC80, 0xDD00):
        escaped = f"\\u{code:04x}"
        if escaped in quoted:
            quoted = quoted.replace(escaped, f"\\x{code - 0xDC00:02x}")
    return quoted


def _string_clause(value: Any) -> str:
    """FormatString: the `%s` of value."""
    if isinstance(value, list):
        return _format_list(value)
    if isinstance(value, dict):
        return _format_map(value)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _go_double(value)
    if isinstance(value, str):
        return value
    if isinstance(value, bytes | bytearray):
        return _bytes_text(value)
    if isinstance(value, datetime.timedelta):
        return _duration_text(value)
    if isinstance(value, datetime.datetime):
        return _timestamp_text(value)
    if isinstance(value, cel.Type):
        return _cel_type_name(value)
    raise FormatError(
        "string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, "
        f"types, durations, and timestamps, was given {_type_name(value)}"
    )


def _member(value: Any) -> str:
    """clauseForType then quoteForCEL: a value inside a formatted list or map."""
    if isinstance(value, bool) or value is None or isinstance(value, cel.Type):
        return _string_clause(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        text = _go_fixed(value, _DEFAULT_PRECISION)
        return f'"{text}"' if math.isnan(value) or math.isinf(value) else text
    if isinstance(value, str):
        return go_quote(value)
    if isinstance(value, bytes | bytearray):
        return "b" + _quote_bytes(value)
    if isinstance(value, datetime.timedelta):
        return f'duration("{_duration_text(value)}")'
    if isinstance(value, datetime.datetime):
        return f'timestamp("{_timestamp_text(value)}")'
    if isinstance(value, list):
        return _format_list(value)
    if isinstance(value, dict):
        return _format_map(value)
    raise FormatError(f"no formatting function for {_type_name(value)}")


def _format_list(values: list[Any]) -> str:
    return "[" + ", ".join(_member(v) for v in values) + "]"


def _format_map(values: dict[str, Any]) -> str:
    pairs = []
    for key, value in values.items():
        if isinstance(key, str):
            key_text = go_quote(key)
        elif isinstance(key, bool):
            key_text = "true" if key else "false"
        elif isinstance(key, int):
            key_text = str(key)
        else:
            raise FormatError(f"no formatting function for map key of type {_type_name(key)}")
        pairs.append((key_text, _member(value)))
    # sort.SliceStable on the formatted keys: Go compares strings bytewise.
    pairs.sort(key=lambda pair: pair[0].encode())
    return "{" + ", ".join(f"{k}:{v}" for k, v in pairs) + "}"


def _go_fixed(value: float, precision: int) -> str:
    """fmt.Sprintf("%.<p>f") (Go: +Inf, -Inf, NaN)."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    return f"{value:.{precision}f}"


def _printer_double(value: Any, clause: str) -> float:
    """The double a %f/%e clause prints: a double, or one of the strings NaN/±Infinity."""
    if isinstance(value, str) and value in _SPECIAL_DOUBLES:
        return float(value.replace("Infinity", "inf"))
    if isinstance(value, float):
        return value
    raise FormatError(f"{clause} clause can only be used on doubles, was given {_type_name(value)}")


def _grouped(integer_digits: str) -> str:
    """en_US digit grouping of x/text's decimal pattern #,##0."""
    groups: list[str] = []
    while len(integer_digits) > 3:
        groups.insert(0, integer_digits[-3:])
        integer_digits = integer_digits[:-3]
    groups.insert(0, integer_digits)
    return ",".join(groups)


def _infinite(value: float) -> str | None:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "∞" if value > 0 else "-∞"
    return None


def _fixed_clause(value: Any, precision: int) -> str:
    """x/text's %.<p>f in en_US: grouped digits, `∞` for infinities."""
    number = _printer_double(value, "fixed-point")
    special = _infinite(number)
    if special is not None:
        return special
    text = f"{abs(number):.{precision}f}"
    whole, _, fraction = text.partition(".")
    sign = "-" if math.copysign(1.0, number) < 0 else ""
    return sign + _grouped(whole) + (f".{fraction}" if fraction else "")


def _scientific_clause(value: Any, width: int, times: str) -> str:
    """x/text's %<width>e in en_US: six fraction digits, `×10` and a superscript exponent."""
    number = _printer_double(value, "scientific")
    special = _infinite(number)
    if special is None:
        mantissa, _, exponent = f"{number:.{_DEFAULT_PRECISION}e}".partition("e")
        power = int(exponent)
        superscript = (("-" if power < 0 else "") + f"{abs(power):02d}").translate(_SUPERSCRIPT)
        special = f"{mantissa}{times}10{superscript}"
    # A width pads on the left with spaces, counted in code points as Go's fmt does.
    return special.rjust(width)


def _integer_clause(value: Any, verb: str) -> str:
    if isinstance(value, bool) and verb == "b":
        return "1" if value else "0"
    if isinstance(value, int) and not isinstance(value, bool):
        return format(value, {"d": "d", "b": "b", "o": "o", "x": "x", "X": "X"}[verb])
    if verb in "xX" and isinstance(value, str | bytes | bytearray):
        raw = value.encode() if isinstance(value, str) else bytes(value)
        return raw.hex().upper() if verb == "X" else raw.hex()
    name = _type_name(value)
    if verb == "d":
        raise FormatError(f"decimal clause can only be used on integers, was given {name}")
    if verb == "b":
        raise FormatError(f"only integers and bools can be formatted as binary, was given {name}")
    if verb == "o":
        raise FormatError(f"octal clause can only be used on integers, was given {name}")
    raise FormatError(
        f"only integers, byte buffers, and strings can be formatted as hex, was given {name}"
    )


def _precision(fmt: str, start: int) -> tuple[int, int | None]:
    """parsePrecision: (offset after it, precision or None)."""
    if fmt[start : start + 1] != ".":
        return start, None
    i = start + 1
    while i < len(fmt) and fmt[i].isascii() and fmt[i].isdigit():
        i += 1
    if i >= len(fmt):
        raise ValueError(
            "could not parse formatting clause: error while parsing precision: "
            "could not find end of precision specifier"
        )
    digits = fmt[start + 1 : i]
    if not digits:
        raise ValueError(
            "could not parse formatting clause: error while parsing precision: error while "
            'converting precision to integer: strconv.Atoi: parsing "": invalid syntax'
        )
    return i, int(digits)


def format_string(fmt: str, args: list[Any], server_minor: int | None = None) -> str:
    """fmt.format(args) as the Kubernetes 1.<server_minor> API server answers (newest if None)."""
    times = features.scientific_times(server_minor)
    out: list[str] = []
    i = 0
    index = 0
    while i < len(fmt):
        char = fmt[i]
        if char != "%":
            out.append(char)
            i += 1
            continue
        if fmt[i + 1 : i + 2] == "%":
            out.append("%")
            i += 2
            continue
        if index >= len(args):
            raise ValueError(f"index {index} out of range")
        if i + 1 >= len(fmt):
            raise ValueError("unexpected end of string")
        position, precision = _precision(fmt, i + 1)
        verb = fmt[position]
        value = args[index]
        try:
            if verb == "s":
                text = _string_clause(value)
            elif verb == "f":
                digits = _DEFAULT_PRECISION if precision is None else precision
                text = _fixed_clause(value, digits)
            elif verb == "e":
                width = _DEFAULT_PRECISION if precision is None else precision
                text = _scientific_clause(value, width, times)
            elif verb in "dboxX":
                text = _integer_clause(value, verb)
            else:
                raise ValueError(
                    f'could not parse formatting clause: unrecognized formatting clause "{verb}"'
                )
        except FormatError as error:
            raise ValueError(f"error during formatting: {error}") from None
        out.append(text)
        i = position + 1
        index += 1
    return "".join(out)
