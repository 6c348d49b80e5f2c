"""The API server's defaulting of objects before admission."""

from policyeditor.engine.defaulting.admissionregistration import (
    apply_defaults,
    default_in_place,
)

__all__ = [
    "apply_defaults",
    "default_in_place",
]
