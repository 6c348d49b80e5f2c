"""The CRDs a draft sees: those it pins, else its team's schema library (newest version)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from policyeditor.editor import extensions
from policyeditor.editor.models import Draft, DraftCrdPin
from policyeditor.engine import schemas
from policyeditor.schemalib import services as library

_CACHE: OrderedDict[tuple[Any, ...], schemas.CrdRegistry] = OrderedDict()
_CACHE_SIZE = 16


def draft_pin(draft: Draft) -> DraftCrdPin | None:
    """The CRDs the draft pins for itself, or None."""
    return DraftCrdPin.objects.filter(draft=draft).first()


def team_library(draft: Draft) -> Any:
    """The schemalib LibraryVersion of the draft's team (its newest), or None."""
    hooks = extensions.review()
    team = hooks.team_of(draft) if hooks is not None else None
    return library.latest(team)


def draft_library(draft: Draft) -> Any:
    """What the draft uses: its pin, else its team's newest library version (None: no CRDs)."""
    return draft_pin(draft) or team_library(draft)


def _key(source: Any) -> tuple[Any, ...]:
    # Library versions never change; a pin changes in place, so its time is part of the key.
    if isinstance(source, DraftCrdPin):
        return ("pin", source.pk, source.updated)
    return ("library", source.pk)


def draft_crds(draft: Draft) -> list[dict[str, Any]]:
    """The CRD documents of the draft's library (handed to engine workers)."""
    version = draft_library(draft)
    return list(version.documents) if version is not None else []


def _registry(version: Any) -> schemas.CrdRegistry | None:
    """The checked registry of a library version or pin (cached)."""
    if version is None:
        return None
    key = _key(version)
    found = _CACHE.get(key)
    if found is None:
        found = schemas.load_crds(version.documents)
        _CACHE[key] = found
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return found


@contextmanager
def draft_layer(draft: Draft) -> Iterator[list[dict[str, Any]]]:
    """The draft's CRDs in force in this process (pickers, completion); yields the documents."""
    version = draft_library(draft)
    with schemas.using_crds(_registry(version)):
        yield list(version.documents) if version is not None else []
