"""API-server validation of admission policies and bindings, as FieldErrors in its own words."""

from policyeditor.engine.validation.documents import (
    apply_defaults,
    bundle_warnings,
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
