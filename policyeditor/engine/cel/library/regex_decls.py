"""CEL declarations of kubernetes.regex."""

from __future__ import annotations

from policyeditor.engine.cel.library import regex
from policyeditor.engine.cel.library.decls import Spec


def specs(version: int) -> list[Spec]:
    """All overloads of the library."""
    return [
        Spec("find", "string_find_string", ("string", "string"), "string", True, regex.find),
        Spec(
            "findAll",
            "string_find_all_string",
            ("string", "string"),
            "list<string>",
            True,
            regex.find_all,
        ),
        Spec(
            "findAll",
            "string_find_all_string_int",
            ("string", "string", "int"),
            "list<string>",
            True,
            regex.find_all,
        ),
    ]
