"""API-server validation of admission policies and bindings, as FieldErrors in its own words."""

from policyeditor.engine.defaulting.admissionregistration import apply_defaults
from policyeditor.engine.validation.bundle import bundle_warnings
from policyeditor.engine.validation.documents import (
    status_message,
    validate_document,
    validate_documents,
    warnings_for,
)
from policyeditor.engine.validation.static import (
    STATIC_SUFFIX,
    feature_problems,
    layout_zip,
    static_layout,
    static_problems,
)

__all__ = [
    "STATIC_SUFFIX",
    "apply_defaults",
    "bundle_warnings",
    "feature_problems",
    "layout_zip",
    "static_layout",
    "static_problems",
    "status_message",
    "validate_document",
    "validate_documents",
    "warnings_for",
]
