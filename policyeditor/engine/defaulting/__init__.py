"""The API server's defaulting of objects before admission."""

from policyeditor.engine.defaulting.admissionregistration import (
    apply_defaults,
    default_in_place,
)
from policyeditor.engine.defaulting.registry import REGISTRY, Defaulted, default_object

__all__ = [
    "REGISTRY",
    "Defaulted",
    "apply_defaults",
    "default_in_place",
    "default_object",
]
