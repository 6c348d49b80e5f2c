"""Runtime cost of Kubernetes library calls.

Follows kubernetes/kubernetes staging/src/k8s.io/apiserver/pkg/cel/library/cost.go,
CostEstimator.CallCost (runtime) and CostEstimator.EstimateCallCost (static).

cel-core owns the cost model; `call_cost(function, args)` gives what one call of a library
function costs for its actual argument values (None: not a library function, use cel-go's
default). `STATIC_COSTS` lists the functions whose cost does not depend on their arguments;
`RUNTIME_CHARGED` those whose Python implementation charges call_cost when it runs (decls.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from google.protobuf.message import Message

from policyeditor.engine.cel.library.formats import FORMATS

AUTHZ_CHECK_COST = 350_000
STRING_TRAVERSAL_FACTOR = 0.1
REGEX_LENGTH_FACTOR = 0.25
LIST_CREATE_BASE_COST = 10
SELECTOR_REQUIREMENT_COST = 50  # 0.5 requirement per character, each costing 50

STATIC_COSTS: dict[str, int] = {
    "check": AUTHZ_CHECK_COST,
    **dict.fromkeys(
        [
            "path",
            "group",
            "serviceAccount",
            "resource",
            "subresource",
            "namespace",
            "name",
            "allowed",
            "reason",
            "errored",
            "error",
            "masked",
            "prefixLength",
            "family",
            "isUnspecified",
            "isLoopback",
            "isLinkLocalMulticast",
            "isLinkLocalUnicast",
            "isGlobalUnicast",
            "format.named",
            "isGreaterThan",
            "isLessThan",
            "compareTo",
            "add",
            "sub",
            "sign",
            "isInteger",
            "asInteger",
            "asApproximateFloat",
            "major",
            "minor",
            "patch",
            "getScheme",
            "getHost",
            "getHostname",
            "getPort",
            "getEscapedPath",
            "getQuery",
        ],
        1,
    ),
    **{f"format.{name}": 1 for name in FORMATS},
}


def _ceil(value: float) -> int:
    return max(0, math.ceil(value))


def _length(value: Any) -> int:
    # cel-go's actualSize: Size() of a Sizer (strings in code points), 1 for anything else.
    if isinstance(value, (str, bytes, bytearray, list, dict)):
        return len(value)
    return 1


def traversal_cost(value: Any) -> int:
    """library/cost.go traversalCost: a tenth of each string's UTF-8 bytes (truncated), 1 per
    other scalar, summed over lists and map keys and values."""
    if isinstance(value, str):
        return int(len(value.encode("utf-8", "surrogatepass")) * STRING_TRAVERSAL_FACTOR)
    if isinstance(value, (bytes, bytearray)):
        return int(len(value) * STRING_TRAVERSAL_FACTOR)
    if isinstance(value, list):
        return sum(traversal_cost(item) for item in value)
    if isinstance(value, dict):
        return sum(traversal_cost(k) + traversal_cost(v) for k, v in value.items())
    return 1


def _address_size(value: Any) -> int:
    # cel.CIDR.Size() is its prefix in bytes, ceil(bits / 8); cel.IP.Size() its address bytes.
    if hasattr(value, "bits"):
        bits: int = value.bits
        return math.ceil(bits / 8)
    addr = getattr(value, "addr", "")
    return 16 if ":" in addr else 4


def _parse_cost(args: Sequence[Any]) -> int:
    return _ceil(STRING_TRAVERSAL_FACTOR * _length(args[0]))


def _regex_cost(args: Sequence[Any]) -> int:
    text, pattern = args[0], args[1]
    return _ceil(STRING_TRAVERSAL_FACTOR * (1 + _length(text))) * _ceil(
        REGEX_LENGTH_FACTOR * _length(pattern)
    )


def _contains_ip_cost(args: Sequence[Any]) -> int:
    cost = _ceil(STRING_TRAVERSAL_FACTOR * 2 * _address_size(args[0]))
    if isinstance(args[1], str):
        cost += _ceil(STRING_TRAVERSAL_FACTOR * _length(args[1]))
    return cost


def _contains_cidr_cost(args: Sequence[Any]) -> int:
    size = _address_size(args[0])
    cost = _ceil(STRING_TRAVERSAL_FACTOR * 2 * size) + _ceil(STRING_TRAVERSAL_FACTOR * size) + 1
    if isinstance(args[1], str):
        cost += _ceil(STRING_TRAVERSAL_FACTOR * _length(args[1]))
    return cost


def _validate_cost(args: Sequence[Any]) -> int:
    max_regex = FORMATS.get(getattr(args[0], "name", ""), (None, 0))[1]
    return _ceil(STRING_TRAVERSAL_FACTOR * (1 + _length(args[1]))) * _ceil(
        REGEX_LENGTH_FACTOR * max_regex
    )


def _selector_cost(args: Sequence[Any]) -> int:
    length = _length(args[1])
    return (
        LIST_CREATE_BASE_COST
        + _ceil(STRING_TRAVERSAL_FACTOR * length)
        + _ceil(0.5 * length) * SELECTOR_REQUIREMENT_COST
    )


def _list_cost(args: Sequence[Any]) -> int:
    return traversal_cost(args[0])


_DYNAMIC: dict[str, Callable[[Sequence[Any]], int]] = {
    **dict.fromkeys(
        ("isSorted", "sum", "max", "min", "indexOf", "lastIndexOf", "includes"), _list_cost
    ),
    **dict.fromkeys(
        (
            "url",  # not isURL: cost.go leaves it to cel-go's default of 1
            "jsonpatch.escapeKey",
            "cidr",
            "isIP",
            "isCIDR",
            "quantity",
            "isQuantity",
            "semver",
            "isSemver",
        ),
        _parse_cost,
    ),
    "ip.isCanonical": lambda args: _ceil(2 * STRING_TRAVERSAL_FACTOR * _length(args[0])),
    "find": _regex_cost,
    "findAll": _regex_cost,
    "containsIP": _contains_ip_cost,
    "containsCIDR": _contains_cidr_cost,
    "validate": _validate_cost,
    "fieldSelector": _selector_cost,
    "labelSelector": _selector_cost,
}


# Charged by their Python implementations when they run (decls._implementation). indexOf and
# lastIndexOf are also strings-extension built-ins: cel.runtime.library_cost charges every overload.
RUNTIME_CHARGED = frozenset(_DYNAMIC).union({"ip"}) - {"indexOf", "lastIndexOf"}


def call_cost(function: str, args: Sequence[Any]) -> int | None:
    """Runtime cost of one library call with these argument values; None if not a library call.

    `ip` is both ip(string) (parse cost) and CIDR.ip() (1); `string` of an IP/CIDR costs 1.
    Calls whose arguments cel-core cannot supply may pass an empty `args` (minimum cost).
    """
    if function == "ip":
        return _parse_cost(args) if args and isinstance(args[0], str) else 1
    if function == "string":
        return 1 if args and isinstance(args[0], Message) else None
    if function in _DYNAMIC:
        if not args:
            return 1
        try:
            return _DYNAMIC[function](args)
        except (IndexError, TypeError, AttributeError):
            return 1
    return STATIC_COSTS.get(function)
