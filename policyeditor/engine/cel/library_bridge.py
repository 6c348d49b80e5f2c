"""The seam to the Kubernetes CEL libraries of `cel/library/` (built by cel-library).

Everything here tolerates a library module that is missing or broken (the libraries are built
in parallel): such a library is left out of the environment instead of breaking every compile.
"""

from __future__ import annotations

import functools
import logging
from typing import Any

AUTHORIZER_TYPE = "kubernetes.authorization.Authorizer"
RESOURCE_CHECK_TYPE = "kubernetes.authorization.ResourceCheck"

_log = logging.getLogger(__name__)


def _module() -> Any:
    try:
        from . import library
    except Exception:  # noqa: BLE001 - a half-built library package must not break the core
        _log.exception("Kubernetes CEL libraries unavailable")
        return None
    return library


@functools.cache
def libraries(feature_minor: int, mutating: bool) -> tuple[Any, ...]:
    """The libraries of a Kubernetes binary at feature_minor (those introduced by then)."""
    library = _module()
    if library is None:
        return ()
    try:
        # compatibility_minor=feature_minor: what the emulated binary knows, no newer library.
        chosen = library.libraries_for(
            feature_minor + 1,
            env_type=library.NEW_EXPRESSIONS,
            mutating=mutating,
            compatibility_minor=feature_minor,
        )
    except Exception:  # noqa: BLE001
        _log.exception("libraries_for failed")
        return ()
    usable = []
    for lib in chosen:
        try:
            lib.specs()
        except Exception:  # noqa: BLE001 - a library still being written
            _log.warning("leaving out CEL library %s: it does not load", lib.name)
            continue
        usable.append(lib)
    return tuple(usable)


@functools.cache
def declarations(feature_minor: int, mutating: bool) -> Any:
    """library.EnvDeclarations for the libraries at feature_minor, or None."""
    library = _module()
    libs = libraries(feature_minor, mutating)
    if library is None or not libs:
        return None
    return library.env_declarations(libs)


def descriptor_pool() -> Any:
    """The libraries' shared descriptor pool (None when the package is unavailable)."""
    library = _module()
    return library.descriptor_pool() if library is not None else None


def has_authorizer(feature_minor: int) -> bool:
    """True when the authz library (and its types) is available."""
    return any(lib.name == "kubernetes.authz" for lib in libraries(feature_minor, False))


@functools.lru_cache(maxsize=1)
def introduced_in() -> dict[str, int]:
    """Function name -> the minor that introduced it, for every library function known."""
    library = _module()
    if library is None:
        return {}
    try:
        return dict(library.function_introduced())
    except Exception:  # noqa: BLE001
        return {}


def authorizer_values(authorizer: Any, request: dict | None) -> tuple[Any, Any]:
    """The CEL values of `authorizer` and `authorizer.requestResource` for one activation."""
    library = _module()
    authz = getattr(library, "authz", None) if library is not None else None
    if authz is None:
        try:
            from .library import authz  # type: ignore[no-redef]
        except Exception:  # noqa: BLE001
            return None, None
    return authz.bind_authorizer(authorizer, request or {})
