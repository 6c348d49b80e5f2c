"""The API docs page: the OpenAPI schema rendered on the server (no script, no CDN)."""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.generators import SchemaGenerator

from policyeditor.api.problems import (
    PROBLEM_BASE,
    PROBLEM_CONTENT_TYPE,
    SPECIFIC_TYPES,
    STATUS_DEFAULTS,
    problem_body,
)

METHODS = ("get", "post", "put", "patch", "delete")


@lru_cache(maxsize=1)
def openapi_schema() -> dict[str, Any]:
    """The generated OpenAPI document (built once per process: the URLs do not change)."""
    return SchemaGenerator().get_schema(request=None, public=True)


def _examples(content: dict[str, Any] | None) -> list[dict[str, str]]:
    """Named examples of a request or response body, pretty-printed."""
    result = []
    for media_type, body in (content or {}).items():
        for name, example in (body.get("examples") or {}).items():
            value = example.get("value")
            text = value if isinstance(value, str) else json.dumps(value, indent=2)
            result.append(
                {"name": example.get("summary") or name, "media_type": media_type, "text": text}
            )
    return result


def operations(schema: dict[str, Any]) -> list[dict[str, Any]]:
    """Every operation of the schema, in path order, with its examples and responses."""
    result = []
    for path, item in schema.get("paths", {}).items():
        for method in METHODS:
            op = item.get(method)
            if not op:
                continue
            responses = [
                {
                    "status": code,
                    "description": resp.get("description", ""),
                    "examples": _examples(resp.get("content")),
                }
                for code, resp in op.get("responses", {}).items()
            ]
            result.append(
                {
                    "id": op.get("operationId", ""),
                    "method": method.upper(),
                    "path": path,
                    "summary": op.get("summary", ""),
                    "description": op.get("description", ""),
                    "tag": (op.get("tags") or [""])[0],
                    "parameters": op.get("parameters", []),
                    "request_examples": _examples((op.get("requestBody") or {}).get("content")),
                    "responses": responses,
                }
            )
    return result


@login_not_required
def api_docs(request: HttpRequest) -> HttpResponse:
    """Endpoints, parameters, examples and problem types, from the same schema clients fetch."""
    schema = openapi_schema()
    problems = [
        {"type": PROBLEM_BASE + slug, "status": code, "title": title, "when": ""}
        for code, (slug, title) in sorted(STATUS_DEFAULTS.items())
    ] + [
        {"type": PROBLEM_BASE + slug, "status": code, "title": title, "when": when}
        for slug, code, title, when in SPECIFIC_TYPES
    ]
    return render(
        request,
        "api/docs.html",
        {
            "operations": operations(schema),
            "info": schema.get("info", {}),
            "problems": problems,
            "base_url": request.build_absolute_uri("/").rstrip("/"),
        },
    )


@csrf_exempt  # it changes nothing; a CSRF page would hide the 404 from API clients
@login_not_required
def api_not_found(request: HttpRequest) -> HttpResponse:
    """A 404 problem for a path under /api/v1/ that names no endpoint (e.g. /drafts/-1)."""
    body = problem_body(404, f"no API endpoint at {request.path}", instance=request.path)
    return JsonResponse(body, status=404, content_type=PROBLEM_CONTENT_TYPE)
