"""The OpenAPI document: valid, public, lists every endpoint, has examples; the docs page renders it."""

from __future__ import annotations

import json

import pytest
import yaml
from django.urls import URLPattern, get_resolver
from drf_spectacular.validation import validate_schema

from policyeditor.api import urls as api_urls
from policyeditor.api.base import ApiView
from policyeditor.api.views_docs import openapi_schema

pytestmark = pytest.mark.django_db


def api_view_paths() -> set[str]:
    """/api/... paths (OpenAPI style) of every DRF view in the api urls module."""
    paths = set()
    for pattern in api_urls.urlpatterns:
        assert isinstance(pattern, URLPattern)
        view_class = getattr(pattern.callback, "view_class", None)
        if view_class is not None and issubclass(view_class, ApiView):
            route = (
                str(pattern.pattern).replace("<int:", "{").replace(">", "}").replace("{pk}", "{id}")
            )
            paths.add("/api/" + route)
    return paths


def test_the_schema_is_valid_openapi_3():
    schema = openapi_schema()
    validate_schema(schema)  # raises on an invalid document
    assert schema["openapi"].startswith("3.")


def test_the_schema_lists_every_endpoint():
    assert get_resolver()  # the project URLconf loads
    listed = set(openapi_schema()["paths"])
    assert api_view_paths() <= listed, api_view_paths() - listed
    assert {
        "/api/v1/validate",
        "/api/v1/evaluate",
        "/api/v1/cel",
        "/api/v1/drafts/{id}/export.yaml",
    } <= listed


def test_every_operation_has_an_id_a_summary_and_token_security():
    for path, item in openapi_schema()["paths"].items():
        for method, operation in item.items():
            assert operation.get("operationId"), (method, path)
            assert operation.get("summary"), (method, path)
            assert {"tokenAuth": []} in operation.get("security", []), (method, path)


@pytest.mark.parametrize("path", ["/api/v1/validate", "/api/v1/evaluate"])
def test_validate_and_evaluate_have_request_and_response_examples(path):
    operation = openapi_schema()["paths"][path]["post"]
    request = operation["requestBody"]["content"]["application/json"]
    assert request.get("examples"), "no request example"
    response = operation["responses"]["200"]["content"]["application/json"]
    assert response.get("examples"), "no response example"


def test_errors_are_documented_as_problems():
    operation = openapi_schema()["paths"]["/api/v1/validate"]["post"]
    for code in ("400", "401", "413"):
        ref = operation["responses"][code]["content"]["application/json"]["schema"]["$ref"]
        assert ref.endswith("/Problem")


def test_the_schema_is_served_without_a_token(client):
    response = client.get("/api/schema/")
    assert response.status_code == 200
    assert set(yaml.safe_load(response.content)["paths"]) == set(openapi_schema()["paths"])
    as_json = client.get("/api/schema/", {"format": "json"})
    assert json.loads(as_json.content)["info"]["title"] == "policyeditor API"


def test_the_docs_page_shows_every_operation_and_the_examples(client):
    response = client.get("/api/docs/")
    assert response.status_code == 200
    text = response.content.decode()
    for path, item in openapi_schema()["paths"].items():
        for method in item:
            assert f"{method.upper()} {path}" in text
    assert "A Deployment with too many replicas" in text  # the evaluate request example
    assert "replicas must be at most 5" in text
    assert "<script>" not in text  # no inline script: the CSP forbids it
