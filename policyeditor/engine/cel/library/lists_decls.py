"""CEL declarations of kubernetes.lists (version 0; version 1 adds `includes`)."""

from __future__ import annotations

from typing import Any

from policyeditor.engine.cel.library import lists
from policyeditor.engine.cel.library.decls import Spec
from policyeditor.engine.cel.library.types import NEVER

COMPARABLE = ("int", "uint", "double", "bool", "duration", "timestamp", "string", "bytes")
SUMMABLE = ("int", "uint", "double", "duration")
_NEVER_LIST = f"list<{NEVER}>"
INCLUDES_RECEIVERS = (
    "list<dyn>",
    "map<dyn, dyn>",
    "string",
    "int",
    "uint",
    "double",
    "bool",
    "bytes",
    "duration",
    "timestamp",
)


def _typed(
    name: str, suffix: str, element_types: tuple[str, ...], result: str | None
) -> list[Spec]:
    # The carrier overload (list of an unconstructible type, returning dyn) holds the runtime
    # implementation: the element-typed overloads are for the type checker, and a dyn carrier
    # lets one implementation return int, double, string... (see decls.py).
    specs = []
    for t in element_types:
        specs.append(Spec(name, f"list_{t}_{suffix}", (f"list<{t}>",), result or t, member=True))
    return specs


def _sum(items: list[Any]) -> object:
    return lists.list_sum(items, 0)


def specs(version: int) -> list[Spec]:
    """All overloads of the library at `version`."""
    out = [
        Spec(
            "isSorted", "list_never_is_sorted_bool", (_NEVER_LIST,), "bool", True, lists.is_sorted
        ),
        *_typed("isSorted", "is_sorted_bool", COMPARABLE, "bool"),
        Spec("sum", "list_never_sum", (_NEVER_LIST,), "dyn", True, _sum),
        *_typed("sum", "sum", SUMMABLE, None),
        Spec("min", "list_never_min", (_NEVER_LIST,), "dyn", True, lists.list_min),
        *_typed("min", "min", COMPARABLE, None),
        Spec("max", "list_never_max", (_NEVER_LIST,), "dyn", True, lists.list_max),
        *_typed("max", "max", COMPARABLE, None),
        Spec(
            "indexOf",
            "list_a_index_of_int",
            ("list<dyn>", "dyn"),
            "int",
            True,
            lists.index_of,
            extension=True,
        ),
        Spec(
            "lastIndexOf",
            "list_a_last_index_of_int",
            ("list<dyn>", "dyn"),
            "int",
            True,
            lists.last_index_of,
            extension=True,
        ),
    ]
    if version >= 1:
        # dyn.includes(dyn): cel-expr-python cannot dispatch a dyn receiver at runtime, so the
        # receiver kinds are enumerated (a list: membership; anything else: equality)
        for kind in INCLUDES_RECEIVERS:
            out.append(
                Spec(
                    "includes",
                    f"{kind.split('<')[0]}_includes_dyn",
                    (kind, "dyn"),
                    "bool",
                    True,
                    lists.includes,
                )
            )
    return out
