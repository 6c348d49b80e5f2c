"""API-server validation of admission policies and bindings, as FieldErrors in its own words."""

from policyeditor.engine.validation.documents import (
    POLICY_KINDS,
    apply_defaults,
    bundle_warnings,
    status_message,
    validate_document,
    validate_documents,
    warnings_for,
)

__all__ = [
    "POLICY_KINDS",
    "apply_defaults",
    "bundle_warnings",
    "status_message",
    "validate_document",
    "validate_documents",
    "warnings_for",
]
