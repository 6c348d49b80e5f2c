"""CRD documents put in force in a worker process, checked once per content."""

from __future__ import annotations

import contextlib
import hashlib
import json
from typing import Any

from policyeditor.engine.schemas.crd_registry import CrdRegistry, load_crds
from policyeditor.engine.schemas.layer import using

# A worker serves many calls with the same CRDs (a draft's library, an impact run's): the checked
# registry is kept by the documents' digest, since checking a large CRD costs more than the call.
_REGISTRIES: dict[str, CrdRegistry] = {}
_KEPT = 4


def crds_in_force(crds: list[dict[str, Any]]) -> contextlib.AbstractContextManager[None]:
    """The CRD documents in force for this call (checked again: workers trust nothing)."""
    if not crds:
        return contextlib.nullcontext()
    digest = hashlib.sha256(json.dumps(crds, sort_keys=True).encode()).hexdigest()
    registry = _REGISTRIES.get(digest)
    if registry is None:
        registry = load_crds(crds)
        if len(_REGISTRIES) >= _KEPT:
            _REGISTRIES.pop(next(iter(_REGISTRIES)))
        _REGISTRIES[digest] = registry
    return using(registry)
