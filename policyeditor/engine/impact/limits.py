"""How much of a dump the reader takes, and the error it gives past that."""

from __future__ import annotations

from typing import Any

from policyeditor.engine.errors import InputError

MAX_DUMP_BYTES = 1024 * 1024 * 1024  # counted after gzip: a small gzip bomb cannot get past it
MAX_OBJECTS = 1_000_000
MAX_OBJECT_NODES = 250_000  # etcd holds objects of at most 1.5 MiB; this is far past any of them
# The text of one JSON value (a List's item, a document): ten times etcd's 1.5 MiB object limit,
# room for kubectl's indentation. It bounds what the reader holds while a value is incomplete.
MAX_VALUE_CHARS = 16 * 1024 * 1024
MAX_DEPTH = 100
MAX_LIST_NESTING = 10


class DumpError(InputError):
    """A dump that cannot be read; the message says why."""


def check_shape(value: Any) -> None:
    """Refuse a value nested deeper than MAX_DEPTH or holding more than MAX_OBJECT_NODES values.

    Iterative, so a deep value cannot exhaust the stack; the root counts as depth 1 and as a value.
    """
    nodes = 1
    stack = [(value, 1)] if value.__class__ is dict or value.__class__ is list else []
    while stack:
        container, depth = stack.pop()
        children = container.values() if container.__class__ is dict else container
        nodes += len(children)
        if nodes > MAX_OBJECT_NODES:
            raise DumpError(f"an object of the dump has more than {MAX_OBJECT_NODES} values")
        for child in children:
            if child.__class__ is dict or child.__class__ is list:
                if depth >= MAX_DEPTH:
                    raise DumpError(
                        f"an object of the dump is nested deeper than {MAX_DEPTH} levels"
                    )
                stack.append((child, depth + 1))
