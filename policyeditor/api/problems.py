"""Problem JSON (RFC 9457) for every API error, so clients parse one error shape."""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig
from django.http import Http404, HttpResponse, JsonResponse
from rest_framework import exceptions

from policyeditor.core.fair_share import EngineBusy
from policyeditor.engine.errors import InputError
from policyeditor.engine.manifests.loading import MAX_BYTES, ManifestError

logger = logging.getLogger(__name__)

PROBLEM_BASE = "https://policyeditor.dev/problems/"
PROBLEM_CONTENT_TYPE = "application/problem+json"

# status -> (type slug, title) for errors that carry no more specific type.
STATUS_DEFAULTS: dict[int, tuple[str, str]] = {
    400: ("invalid-input", "Invalid input"),
    401: ("not-authenticated", "Authentication required"),
    403: ("forbidden", "Forbidden"),
    404: ("not-found", "Not found"),
    405: ("method-not-allowed", "Method not allowed"),
    406: ("not-acceptable", "Not acceptable"),
    409: ("conflict", "Conflict"),
    413: ("payload-too-large", "Request entity too large"),
    415: ("unsupported-media-type", "Unsupported media type"),
    422: ("unprocessable", "Unprocessable input"),
    428: ("precondition-required", "Precondition required"),
    429: ("throttled", "Too many requests"),
}


# Specific problem types beyond the per-status defaults: (slug, status, title, when).
SPECIFIC_TYPES: tuple[tuple[str, int, str, str], ...] = (
    ("unreadable-input", 400, "Invalid input", "the body or the yaml field is not valid YAML/JSON"),
    (
        "evaluation-limit",
        422,
        "Evaluation limit exceeded",
        "the engine's deadline or memory cap stopped the work",
    ),
    (
        "engine-failure",
        422,
        "Input the engine cannot process",
        "an engine bug met this input (logged)",
    ),
    (
        "evaluation-busy",
        429,
        "Too many evaluations at once",
        "the user already runs POLICYEDITOR_EVAL_PER_USER engine calls (Retry-After says when to retry)",
    ),
    (
        "quota-exceeded",
        403,
        "Storage quota exceeded",
        "the write would pass the user's or team's limit of drafts, revisions or bytes",
    ),
    ("internal-error", 500, "Internal server error", "a bug in the API itself (logged)"),
)


class Problem(exceptions.APIException):
    """An API error with a problem type, a title, a detail and optional field errors."""

    def __init__(
        self,
        status_code: int,
        detail: str,
        *,
        slug: str | None = None,
        title: str | None = None,
        errors: list[dict[str, Any]] | None = None,
        extra: dict[str, Any] | None = None,
    ) -> None:
        default_slug, default_title = STATUS_DEFAULTS.get(status_code, ("error", "Error"))
        self.status_code = status_code
        self.slug = slug or default_slug
        self.title = title or default_title
        self.errors = errors or []
        self.extra = extra or {}
        super().__init__(detail=detail)


def payload_too_large(size: int | None = None) -> Problem:
    """The 413 the API server gives for a body over its 3 MiB limit."""
    detail = f"Request entity too large: limit is {MAX_BYTES}"
    extra = {"limit": MAX_BYTES}
    if size is not None:
        extra["size"] = size
    return Problem(413, detail, extra=extra)


def problem_body(
    status_code: int,
    detail: str,
    *,
    slug: str | None = None,
    title: str | None = None,
    errors: list[dict[str, Any]] | None = None,
    instance: str = "",
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The JSON object of one problem response."""
    default_slug, default_title = STATUS_DEFAULTS.get(status_code, ("error", "Error"))
    body: dict[str, Any] = {
        "type": PROBLEM_BASE + (slug or default_slug),
        "title": title or default_title,
        "status": status_code,
        "detail": detail,
    }
    if instance:
        body["instance"] = instance
    body["errors"] = errors or []
    body.update(extra or {})
    return body


def flatten_errors(detail: Any, path: str = "") -> list[dict[str, str]]:
    """DRF's nested error detail as a flat list of {path, message} with Kubernetes-style paths."""
    if isinstance(detail, dict):
        result = []
        for key, value in detail.items():
            key = str(key)
            if key in {"non_field_errors", "__all__"}:
                child = path
            elif key.isdigit():
                child = f"{path}[{key}]"
            else:
                child = f"{path}.{key}" if path else key
            result.extend(flatten_errors(value, child))
        return result
    if isinstance(detail, list):
        if all(not isinstance(item, dict | list) for item in detail):
            return [{"path": path, "message": str(item)} for item in detail]
        result = []
        for index, item in enumerate(detail):
            if isinstance(item, dict | list) and item:
                result.extend(flatten_errors(item, f"{path}[{index}]"))
            elif not isinstance(item, dict | list):
                result.append({"path": path, "message": str(item)})
        return result
    return [{"path": path, "message": str(detail)}]


def _summary(errors: list[dict[str, Any]]) -> str:
    """A one-line detail naming the first field error (and how many more)."""
    if not errors:
        return "The request is not valid."
    first = errors[0]
    text = f"{first['path']}: {first['message']}" if first.get("path") else first["message"]
    if len(errors) > 1:
        text += f" (and {len(errors) - 1} more)"
    return text


def _from_exception(exc: Exception) -> tuple[int, dict[str, Any], dict[str, str]]:
    """Status, body and extra headers for an exception, or raise it again when unknown."""
    headers: dict[str, str] = {}
    if isinstance(exc, Problem):
        return (
            exc.status_code,
            problem_body(
                exc.status_code,
                str(exc.detail),
                slug=exc.slug,
                title=exc.title,
                errors=exc.errors,
                extra=exc.extra,
            ),
            headers,
        )
    if isinstance(exc, EngineBusy):
        headers["Retry-After"] = str(exc.retry_after)
        body = problem_body(
            429,
            exc.message,
            slug="evaluation-busy",
            title="Too many evaluations at once",
            extra={"retryAfter": exc.retry_after},
        )
        return 429, body, headers
    if isinstance(exc, ManifestError):
        extra = {
            key: value
            for key, value in (
                ("document", exc.document),
                ("line", exc.line),
                ("column", exc.column),
            )
            if value is not None
        }
        if "too large" in exc.problem:
            return 413, problem_body(413, str(exc), extra={"limit": MAX_BYTES}), headers
        return 400, problem_body(400, str(exc), slug="unreadable-input", extra=extra), headers
    if isinstance(exc, InputError):
        return 400, problem_body(400, str(exc), slug="unreadable-input"), headers
    if isinstance(exc, RequestDataTooBig):
        body = problem_body(413, f"Request entity too large: limit is {MAX_BYTES}")
        return 413, body, headers
    if isinstance(exc, Http404):
        return 404, problem_body(404, str(exc) or "Not found."), headers
    if isinstance(exc, DjangoPermissionDenied):
        return 403, problem_body(403, str(exc) or "Permission denied."), headers
    if isinstance(exc, exceptions.ValidationError):
        errors = flatten_errors(exc.detail)
        return 400, problem_body(400, _summary(errors), errors=errors), headers
    if isinstance(exc, exceptions.APIException):
        code = exc.status_code
        if isinstance(exc, exceptions.NotAuthenticated | exceptions.AuthenticationFailed):
            auth_header = getattr(exc, "auth_header", None)
            if auth_header:
                headers["WWW-Authenticate"] = auth_header
        # Throttled.__init__ sets `wait`; djangorestframework-stubs do not declare it.
        wait: float | None = exc.wait if isinstance(exc, exceptions.Throttled) else None  # type: ignore[attr-defined]
        if wait is not None:
            headers["Retry-After"] = str(int(wait) + (wait % 1 > 0))
        detail = exc.detail
        text = (
            str(detail) if not isinstance(detail, dict | list) else _summary(flatten_errors(detail))
        )
        return code, problem_body(code, text), headers
    raise exc


def exception_handler(exc: Exception, context: dict) -> HttpResponse | None:
    """DRF exception handler: every error becomes problem JSON with the exact reason."""
    try:
        code, body, headers = _from_exception(exc)
    except Exception:
        return None  # unknown: DRF re-raises it; the view layer turns it into a logged 500
    request = context.get("request")
    if request is not None:
        body.setdefault("instance", request.path)
    # Always JSON, whatever the client accepts (e.g. `Accept: text/yaml` on export): one error
    # shape for every client, and a YAML-reading pipe never mistakes a problem for a manifest.
    response = JsonResponse(body, status=code, content_type=PROBLEM_CONTENT_TYPE)
    for name, value in headers.items():
        response[name] = value
    return response
