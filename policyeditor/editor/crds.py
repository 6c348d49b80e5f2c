"""The CRDs a draft sees: its team's schema library (newest version), layered over the built-ins."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from policyeditor.editor import extensions
from policyeditor.editor.models import Draft
from policyeditor.engine import schemas
from policyeditor.schemalib import services as library

_CACHE: OrderedDict[int, schemas.CrdRegistry] = OrderedDict()
_CACHE_SIZE = 16


def draft_library(draft: Draft) -> Any:
    """The schemalib LibraryVersion the draft uses (its team's newest), or None."""
    hooks = extensions.review()
    team = hooks.team_of(draft) if hooks is not None else None
    return library.latest(team)


def draft_crds(draft: Draft) -> list[dict[str, Any]]:
    """The CRD documents of the draft's library (handed to engine workers)."""
    version = draft_library(draft)
    return list(version.documents) if version is not None else []


def _registry(version: Any) -> schemas.CrdRegistry | None:
    """The checked registry of a library version; versions never change, so it is cached."""
    if version is None:
        return None
    found = _CACHE.get(version.pk)
    if found is None:
        found = schemas.load_crds(version.documents)
        _CACHE[version.pk] = found
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return found


@contextmanager
def draft_layer(draft: Draft) -> Iterator[list[dict[str, Any]]]:
    """The draft's CRDs in force in this process (pickers, completion); yields the documents."""
    version = draft_library(draft)
    with schemas.using_crds(_registry(version)):
        yield list(version.documents) if version is not None else []
