"""API-server validation of admission policies and bindings, as FieldErrors in its own words."""

from policyeditor.engine.defaulting.admissionregistration import apply_defaults
from policyeditor.engine.validation.bundle import bundle_warnings
from policyeditor.engine.validation.documents import (
    status_message,
    validate_document,
    validate_documents,
    warnings_for,
)

__all__ = [
    "apply_defaults",
    "bundle_warnings",
    "status_message",
    "validate_document",
    "validate_documents",
    "warnings_for",
]
