"""Property-based requests generated from our own OpenAPI document: no answer is ever a 500."""

from __future__ import annotations

import zlib

import pytest
import schemathesis
from django.core import signals
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, settings

from policyeditor.api.examples import POLICY
from policyeditor.api.views_docs import openapi_schema
from policyeditor.editor.services import create_draft
from policyeditor.review.models import SavedTestCase

pytestmark = pytest.mark.django_db

SCHEMA = schemathesis.openapi.from_dict(openapi_schema())
APP = get_wsgi_application()


@pytest.fixture(autouse=True)
def _keep_the_test_connection():
    """Like Django's test client: the request signals must not close the test's transaction.

    Called through WSGI directly, each request's end would run close_old_connections, which on
    PostgreSQL closes the connection the test transaction lives on.
    """
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


@pytest.fixture
def target(settings, alice_token, alice):
    """The app as schemathesis sees it: any host, no throttling, and a draft to aim at."""
    settings.ALLOWED_HOSTS = ["*"]
    settings.POLICYEDITOR_API_THROTTLE_RATE = None
    draft = create_draft(alice, [POLICY], name="fuzzed")
    saved = SavedTestCase.objects.create(
        draft=draft, name="c", case={"name": "c", "expect": {"result": "deny"}}
    )
    return {"token": alice_token, "draft": draft.pk, "case": saved.pk}


@SCHEMA.parametrize()
@settings(
    max_examples=15,
    deadline=None,
    derandomize=True,  # the same examples on every CI run
    database=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.filter_too_much,
    ],
)
def test_no_generated_request_gets_a_server_error(case, target):
    # Aim path parameters at real objects half of the time, so the handlers run, not just 404.
    if case.path_parameters and zlib.crc32(repr(case.body).encode()) % 2 == 0:
        if "id" in case.path_parameters:
            case.path_parameters["id"] = target["draft"]
        if "case_id" in case.path_parameters:
            case.path_parameters["case_id"] = target["case"]
    response = case.call(app=APP, headers={"Authorization": f"Token {target['token']}"})
    assert response.status_code < 500, (
        f"{case.method} {case.formatted_path}: {response.text[:2000]}"
    )
    if response.status_code >= 400:
        content_type = (response.headers.get("content-type") or [""])[0]
        assert content_type.startswith("application/problem+json"), response.text[:500]
