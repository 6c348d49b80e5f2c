"""CEL declarations of kubernetes.jsonpatch (MutatingAdmissionPolicy environments only)."""

from __future__ import annotations

from policyeditor.engine.cel.library import jsonpatch
from policyeditor.engine.cel.library.decls import Spec


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
