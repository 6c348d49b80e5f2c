"""The custom resource definitions in force for the current call, layered over the built-ins.

Every schema and resource lookup (`openapi.schema_for`, `resources.kind_for_resource`, ...) asks
the built-in tables first and then the layer set here, so a caller that has CRDs (the CLI's
`--crd`, a suite's `crds:`, an API request, a team's schema library) activates them once with
`using(registry)` and every consumer below sees them, in this thread or task only.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Protocol


class CustomLayer(Protocol):
    """What the lookups need from a set of CRDs (crd_registry.CrdRegistry implements it)."""

    def schema_for(self, group: str, version: str, kind: str) -> dict[str, Any] | None:
        """The prepared openAPIV3Schema of a served version of a CRD kind, or None."""

    def resources(self) -> tuple[Any, ...]:
        """One ResourceInfo per served version of each CRD."""


_ACTIVE: ContextVar[CustomLayer | None] = ContextVar("policyeditor_crd_layer", default=None)


def active() -> CustomLayer | None:
    """The CRD layer in force, or None (built-in kinds only)."""
    return _ACTIVE.get()


@contextmanager
def using(layer: CustomLayer | None) -> Iterator[None]:
    """Make `layer` the CRD layer for the calls inside the block (None: built-ins only)."""
    token = _ACTIVE.set(layer)
    try:
        yield
    finally:
        _ACTIVE.reset(token)
