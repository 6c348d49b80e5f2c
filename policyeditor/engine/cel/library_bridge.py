"""The seam between the CEL environment and the Kubernetes CEL libraries of `cel/library/`.

A library that fails to load is an error here, never a library silently left out: an environment
without it would accept expressions the API server refuses, or refuse ones it accepts.
"""

from __future__ import annotations

import functools
from typing import Any

from policyeditor.engine.cel import library
from policyeditor.engine.cel.library import authz

AUTHORIZER_TYPE = "kubernetes.authorization.Authorizer"
RESOURCE_CHECK_TYPE = "kubernetes.authorization.ResourceCheck"


@functools.cache
def libraries(feature_minor: int, mutating: bool) -> tuple[Any, ...]:
    """The libraries of a Kubernetes binary at feature_minor (those introduced by then)."""
    # compatibility_minor=feature_minor: what the emulated binary knows, no newer library.
    return tuple(
        library.libraries_for(
            feature_minor + 1,
            env_type=library.NEW_EXPRESSIONS,
            mutating=mutating,
            compatibility_minor=feature_minor,
        )
    )


@functools.cache
def declarations(feature_minor: int, mutating: bool) -> Any:
    """library.EnvDeclarations for the libraries at feature_minor."""
    return library.env_declarations(libraries(feature_minor, mutating))


def descriptor_pool() -> Any:
    """The libraries' shared descriptor pool (their opaque types: net.IP, Quantity...)."""
    return library.descriptor_pool()


def has_authorizer(feature_minor: int) -> bool:
    """True when the authz library is part of the environment at feature_minor."""
    return any(lib.name == "kubernetes.authz" for lib in libraries(feature_minor, False))


@functools.lru_cache(maxsize=1)
def introduced_in() -> dict[str, int]:
    """Function name -> the minor that introduced it, for every library function known."""
    return dict(library.function_introduced())


def authorizer_values(authorizer: Any, request: dict[str, Any] | None) -> tuple[Any, Any]:
    """The CEL values of `authorizer` and `authorizer.requestResource` for one activation."""
    return authz.bind_authorizer(authorizer, request or {})
