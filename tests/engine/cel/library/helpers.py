"""A minimal CEL environment of our own, to evaluate library functions end to end in tests."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import pytest
from cel_expr_python import cel
from cel_expr_python.ext.ext_optional import ExtOptional
from cel_expr_python.ext.ext_strings import ExtStrings

from policyeditor.engine.cel import library
from policyeditor.engine.cel.library import formats_decls
from policyeditor.engine.cel.library.errors import LibraryError


@functools.lru_cache(maxsize=64)
def env_for(names: tuple[str, ...], variables: tuple[str, ...] = ("object",)) -> Any:
    """An env with strings v2, optional types and the named Kubernetes libraries."""
    # the Go tests of the cidr library build their env with the ip library too
    wanted = list(names) + (["kubernetes.net.ip"] if "kubernetes.net.cidr" in names else [])
    libs = [library.library(name) for name in dict.fromkeys(wanted)]
    decls = library.env_declarations(libs)
    types = {name: cel.Type.DYN for name in variables}
    if "authorizer" in variables:
        types["authorizer"] = cel.Type(library.types.AUTHORIZER)
    return cel.NewEnv(
        library.descriptor_pool(),
        extensions=[ExtStrings(2), ExtOptional(), decls.extension()],
        functions=decls.functions,
        variables=types,
    )


class EvalError(Exception):
    """A compile or runtime error, with the engine's text."""

    def __init__(self, phase: str, message: str) -> None:
        super().__init__(message)
        self.phase = phase


def evaluate(expr: str, names: tuple[str, ...], data: dict | None = None) -> Any:
    """The plain value of `expr`, or EvalError(phase, message)."""
    data = data or {}
    env = env_for(names, tuple(sorted(data)) or ("object",))
    source = formats_decls.rewrite_source(expr)
    try:
        compiled = env.compile(source)
    except RuntimeError as exc:
        raise EvalError("compile", str(exc)) from None
    value = compiled.eval(data=data)
    if value.type() == cel.Type.ERROR:
        raise EvalError("runtime", library.strip_status(str(value.value())))
    return value.plain_value()


def eval_error(expr: str, names: tuple[str, ...], data: dict | None = None) -> EvalError:
    """The EvalError that evaluating `expr` raises (the test fails if it raises none)."""
    with pytest.raises(EvalError) as caught:
        evaluate(expr, names, data)
    return caught.value


def library_error(call: Callable[..., object], *args: Any) -> LibraryError:
    """The LibraryError that `call(*args)` raises (the test fails if it raises none)."""
    with pytest.raises(LibraryError) as caught:
        call(*args)
    return caught.value
