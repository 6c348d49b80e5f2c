"""Plain YAML scalars as go-yaml v2 reads them (kubectl and the API server, via sigs.k8s.io/yaml).

PyYAML follows YAML 1.1, which differs on y/n, 1e3, 0o17, 08 and sexagesimal 1:20 (an unquoted
`12:30` that kubectl prints is the string "12:30" to the cluster, the number 750 to PyYAML).
"""

from __future__ import annotations

import math
import re
from typing import Any

STR = "tag:yaml.org,2002:str"
INT = "tag:yaml.org,2002:int"
FLOAT = "tag:yaml.org,2002:float"
BOOL = "tag:yaml.org,2002:bool"
NULL = "tag:yaml.org,2002:null"
SEQ = "tag:yaml.org,2002:seq"
MAP = "tag:yaml.org,2002:map"
MERGE = "tag:yaml.org,2002:merge"
SCALAR_TAGS = frozenset((STR, INT, FLOAT, BOOL, NULL))


# go-yaml v2's table of plain scalars with a fixed meaning (resolve.go).
_GO_TABLE: dict[str, str] = {
    **dict.fromkeys(
        ("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"), BOOL
    ),
    **dict.fromkeys(
        ("n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"), BOOL
    ),
    **dict.fromkeys(("", "~", "null", "Null", "NULL"), NULL),
    **dict.fromkeys((".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF"), FLOAT),
    **dict.fromkeys(("+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF"), FLOAT),
    "<<": MERGE,
}
_GO_TRUE = frozenset(("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"))
_GO_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")
_DOT_FLOAT = re.compile(r"\.[0-9]+([eE][-+]?[0-9]+)?")
_DIGITS = {2: "01", 8: "01234567", 10: "0123456789", 16: "0123456789abcdef"}


def go_int(text: str) -> int | None:
    """strconv.ParseInt(text, 0, 64), else ParseUint, after go-yaml drops underscores."""
    plain = text.replace("_", "")
    sign = -1 if plain[:1] == "-" else 1
    body = plain[1:] if plain[:1] in ("-", "+") else plain
    lowered = body.lower()
    if lowered[:2] in ("0x", "0o", "0b"):
        base, digits = {"0x": 16, "0o": 8, "0b": 2}[lowered[:2]], lowered[2:]
    elif len(body) > 1 and body[0] == "0":
        base, digits = 8, lowered[1:]
    else:
        base, digits = 10, lowered
    # Past 64 binary digits no base fits int64/uint64; int() of a huge text would also raise.
    if not digits or len(digits) > 64 or any(char not in _DIGITS[base] for char in digits):
        return None
    value = sign * int(digits, base)
    if -(2**63) <= value < 2**63 or (0 <= value < 2**64 and plain[:1] != "+"):
        return value
    return None


def _finite(text: str) -> bool:
    """Whether a float literal fits a float64 (Python's float() gives inf where Go errs)."""
    return math.isfinite(float(text))


def go_plain_tag(value: str) -> str:
    """The tag go-yaml v2 gives a plain (unquoted) scalar."""
    tag = _GO_TABLE.get(value)
    if tag is not None:
        return tag
    first = value[:1]
    if first == ".":
        return FLOAT if _DOT_FLOAT.fullmatch(value) else STR
    if first and first in "+-0123456789":
        if go_int(value) is not None:
            return INT
        # strconv.ParseFloat's range error (1e400) leaves the scalar a string in go-yaml.
        if _GO_FLOAT.fullmatch(value.replace("_", "")) and _finite(value.replace("_", "")):
            return FLOAT
    return STR


def plain_tag(value: str) -> str:
    """go_plain_tag, remembered for short scalars: keys and many values repeat in a stream."""
    tag = _PLAIN_TAGS.get(value)
    if tag is None:
        tag = go_plain_tag(value)
        if len(value) <= 64:
            if len(_PLAIN_TAGS) >= 4096:
                _PLAIN_TAGS.clear()
            _PLAIN_TAGS[value] = tag
    return tag


_PLAIN_TAGS: dict[str, str] = {}  # go_plain_tag of short plain scalars, a bounded memo


def go_scalar(tag: str, text: str) -> Any:
    """The JSON value of a scalar with `tag`; ValueError (its text the problem) when it has none."""
    if tag == STR:
        return text
    if tag not in SCALAR_TAGS:
        raise ValueError(f"unsupported tag {tag}")
    if tag == NULL:
        return None
    if tag == BOOL:
        if _GO_TABLE.get(text) != BOOL:
            raise ValueError(f"invalid bool value {text!r}")
        return text in _GO_TRUE
    if tag == INT:
        number = go_int(text)
        if number is None:
            raise ValueError(f"invalid int value {text!r}")
        return number
    if _GO_TABLE.get(text) == FLOAT or not _GO_FLOAT.fullmatch(text.replace("_", "")):
        # JSON (and so the API server) cannot carry inf/nan: json.Marshal fails on them.
        message = "not a finite number" if _GO_TABLE.get(text) == FLOAT else "invalid float"
        raise ValueError(f"unsupported value {text!r}: {message}")
    return float(text.replace("_", ""))


def key_text(value: Any) -> str:
    """A scalar mapping key as text, as sigs.k8s.io/yaml converts keys for JSON."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return str(int(value))  # Go's FormatFloat 'g' writes 1000, not 1000.0
    return str(value)
