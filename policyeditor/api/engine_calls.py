"""The engine work behind validate, evaluate and cel, as plain functions run in the isolation pool.

Nothing here imports Django: the functions run in engine worker processes (see
policyeditor.engine.isolation), take and return picklable JSON-shaped values, and report bad
input as {"problem": {...}} instead of raising, because exceptions cross the process boundary
only as text.
"""

from __future__ import annotations

import logging
from typing import Any

from policyeditor.engine.errors import FieldError, InputError

logger = logging.getLogger(__name__)


def _problem(detail: str, *, status: int = 400, errors: list[dict] | None = None) -> dict:
    return {"problem": {"status": status, "detail": detail, "errors": errors or []}}


def _located(documents: list[dict], index: int, error: FieldError) -> dict[str, Any]:
    """A FieldError with the document it belongs to (index, kind, name)."""
    doc = documents[index] if 0 <= index < len(documents) else {}
    metadata = doc.get("metadata") if isinstance(doc.get("metadata"), dict) else {}
    name = metadata.get("name") or metadata.get("generateName") or ""
    kind = doc.get("kind")
    return {
        "document": index,
        "kind": kind if isinstance(kind, str) else "",
        "name": name if isinstance(name, str) else "",
        "path": error.path,
        "message": error.message,
    }


def validate_bundle(documents: list[dict], version: str) -> dict[str, Any]:
    """API-server validation (with CEL compilation) of every document, plus warnings."""
    from policyeditor.engine import validation

    try:
        errors = validation.validate_documents(documents, version=version)
        warnings = [
            (index, warning)
            for index, doc in enumerate(documents)
            for warning in validation.warnings_for(doc, version=version)
        ]
    except InputError as exc:
        return _problem(str(exc))
    return {
        "valid": not errors,
        "kubernetesVersion": version,
        "errors": [_located(documents, index, error) for index, error in errors],
        "warnings": [_located(documents, index, warning) for index, warning in warnings],
    }


def _authorizer(entries: list[dict] | None):
    """A mocked authorizer from the request's entries (None when there are none)."""
    if not entries:
        return None
    from policyeditor.engine.testing_authorizer import MockAuthorizer, parse_entries

    return MockAuthorizer(parse_entries([dict(entry) for entry in entries]))


def evaluate_bundle(payload: dict[str, Any]) -> dict[str, Any]:
    """Build the admission request and evaluate the documents against it."""
    from policyeditor.engine import admission

    version = payload["kubernetesVersion"]
    try:
        authorizer = _authorizer(payload.get("authorizer"))
    except ValueError as exc:  # parse_entries names the entry and field at fault
        return _problem(str(exc))
    try:
        request = admission.AdmissionRequest.build(
            object=payload.get("object"),
            old_object=payload.get("oldObject"),
            operation=payload.get("operation"),
            user_info=payload.get("userInfo"),
            overrides=payload.get("request"),
            version=version,
        )
        options: dict[str, Any] = {}
        if "params" in payload:
            options["params"] = payload["params"]
        result = admission.evaluate(
            payload["documents"],
            request,
            version=version,
            resources=payload.get("resources") or [],
            namespace_object=payload.get("namespaceObject"),
            authorizer=authorizer,
            policy=payload.get("policy"),
            binding=payload.get("binding"),
            **options,
        )
    except InputError as exc:
        return _problem(str(exc))
    body = result.to_dict()
    body["kubernetesVersion"] = version
    return body
