"""Start-up checks: the engine's parts that must load do, or the server refuses to start."""

# The engine fails closed on a missing part (no fallbacks). These checks run at start-up
# (`manage.py check`, `runserver`, `migrate`, and `check --deploy` before a deployment), so a
# broken install is reported once, clearly, with the part that failed, instead of as an error in
# the first request that needs it.

from __future__ import annotations

import importlib
from typing import Any

from django.core.checks import CheckMessage, Error

# Each part the engine cannot work without, and the error id reported when it cannot load.
MODULES = (
    ("cel_expr_python.cel", "policyeditor.E001", "the CEL runtime (cel-expr-python)"),
    ("kubernetes_validate", "policyeditor.E003", "kubernetes-validate (the OpenAPI schemas)"),
    ("policyeditor.engine.cel.compiler", "policyeditor.E002", "the engine's CEL compiler"),
    ("policyeditor.engine.schemas", "policyeditor.E003", "the engine's schema module"),
)
# A trivial expression every Kubernetes version's environment compiles.
PROBE_EXPRESSION = "1 + 1 == 2"
HINT = "Reinstall the dependencies (`make install` or `pip install -e .`) and restart."


def _load(module: str, check_id: str, what: str) -> tuple[Any, list[CheckMessage]]:
    try:
        return importlib.import_module(module), []
    except Exception as exc:  # any failure to load is reported, never ignored
        error = Error(
            f"{what} cannot be loaded: {type(exc).__name__}: {exc}", hint=HINT, id=check_id
        )
        return None, [error]


def engine_parts(app_configs=None, **kwargs) -> list[CheckMessage]:
    """Errors for each engine part that cannot load; [] when the engine is complete."""
    loaded: dict[str, Any] = {}
    errors: list[CheckMessage] = []
    for module, check_id, what in MODULES:
        loaded[module], problems = _load(module, check_id, what)
        errors.extend(problems)
    compiler = loaded["policyeditor.engine.cel.compiler"]
    if compiler is not None:
        errors.extend(_cel_compiles(compiler))
    schemas = loaded["policyeditor.engine.schemas"]
    if schemas is not None:
        errors.extend(_schemas_readable(schemas))
    return errors


def _cel_compiles(compiler: Any) -> list[CheckMessage]:
    try:
        result = compiler.compile_expression(PROBE_EXPRESSION)
        problem = "; ".join(issue.message for issue in result.errors) if not result.ok else ""
    except Exception as exc:  # a crash in the CEL environment is what this check exists for
        problem = f"{type(exc).__name__}: {exc}"
    if not problem:
        return []
    message = f"the CEL environment does not compile {PROBE_EXPRESSION!r}: {problem}"
    return [Error(message, hint=HINT, id="policyeditor.E002")]


def _schemas_readable(schemas: Any) -> list[CheckMessage]:
    try:
        definitions = schemas.definitions()
        problem = "" if definitions else "no definitions"
    except Exception as exc:  # SchemasUnavailable, or a broken file
        problem = f"{type(exc).__name__}: {exc}"
    if not problem:
        return []
    message = f"kubernetes-validate's schemas are not readable: {problem}"
    return [Error(message, hint=HINT, id="policyeditor.E003")]
