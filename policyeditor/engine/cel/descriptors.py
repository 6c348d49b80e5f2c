"""The one protobuf descriptor pool every CEL environment shares: library and admission types."""

from __future__ import annotations

import functools
from typing import Any

from policyeditor.engine.cel import k8s_types, library_bridge


def shared_pool() -> Any:
    """The descriptor pool of every environment (library types and admission types)."""
    return _pool()


@functools.lru_cache(maxsize=1)
def _pool() -> Any:
    # One pool for everything: the libraries' opaque types and our typed admission variables.
    pool = library_bridge.descriptor_pool()
    for fdp in [
        *k8s_types.dependency_descriptors(),
        k8s_types.file_descriptor(),
        k8s_types.jsonpatch_descriptor(),
    ]:
        try:
            pool.FindFileByName(fdp.name)
        except KeyError:
            pool.Add(fdp)
    return pool
