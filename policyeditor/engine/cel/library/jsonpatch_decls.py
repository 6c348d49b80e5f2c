"""CEL declarations of kubernetes.jsonpatch (MutatingAdmissionPolicy environments only)."""

from __future__ import annotations

from . import jsonpatch
from .decls import Spec


def specs(version: int) -> list[Spec]:
    """All overloads of the library."""
    return [
        Spec(
            "jsonpatch.escapeKey",
            "string_jsonpatch_escapekey_string",
            ("string",),
            "string",
            False,
            jsonpatch.escape_key,
        ),
    ]
