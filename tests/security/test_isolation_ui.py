"""The editor's engine calls must go through the isolation pool, as the API's do."""

from __future__ import annotations

import pytest

from policyeditor.engine.isolation import WorkerPool
from tests.security.hostile import BASE_POLICY, as_yaml

pytestmark = pytest.mark.django_db

DEPLOYMENT = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\n"


@pytest.fixture
def pool_calls(monkeypatch):
    """Every call the isolation pool receives (run in-process here, so nothing is spawned)."""
    calls: list[str] = []

    def call(self, fn, *args, timeout=None, **kwargs):
        calls.append(getattr(fn, "__name__", repr(fn)))
        return fn(*args, **kwargs)

    monkeypatch.setenv("POLICYEDITOR_ISOLATION", "on")
    monkeypatch.setattr(WorkerPool, "call", call)
    return calls


def test_the_api_evaluates_through_the_pool(api, pool_calls):
    response = api.post(
        "/api/v1/cel", '{"expression": "1 + 1 == 2"}', content_type="application/json"
    )
    assert response.status_code == 200
    assert pool_calls  # the reference: the API is isolated


def test_the_try_it_tab_evaluates_through_the_pool(ui, draft, pool_calls):
    response = ui.post(
        f"/drafts/{draft.pk}/try/",
        {"docs": "d1", "d1:yaml": as_yaml(BASE_POLICY), "try_object": DEPLOYMENT},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200
    assert pool_calls
