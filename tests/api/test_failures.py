"""When the engine fails or runs out of time, or a view has a bug, the client still gets problem JSON."""

from __future__ import annotations

import pytest

from policyeditor.core import engine_gate
from policyeditor.engine.isolation import IsolationError

pytestmark = pytest.mark.django_db

CEL = "/api/v1/cel"


def test_an_evaluation_past_the_deadline_is_a_422_saying_so(api, monkeypatch):
    def too_slow(fn, *args, **kwargs):
        raise IsolationError(
            "timeout", "evaluation exceeded the time limit of 1.5s and was stopped"
        )

    monkeypatch.setattr(engine_gate, "run_isolated", too_slow)
    response = api.post(CEL, {"expression": "1"})
    assert response.status_code == 422
    problem = response.json()
    assert problem["type"].endswith("/evaluation-limit")
    assert problem["detail"] == "evaluation exceeded the time limit of 1.5s and was stopped"


def test_an_engine_bug_is_a_422_with_the_reason_and_is_logged(api, monkeypatch, caplog):
    def broken(fn, *args, **kwargs):
        raise RuntimeError("KeyError: 'spec'")

    monkeypatch.setattr(engine_gate, "run_isolated", broken)
    response = api.post(CEL, {"expression": "1"})
    assert response.status_code == 422
    assert response.json()["detail"] == "the engine could not process this input: KeyError: 'spec'"
    assert "engine failure in evaluate_cel" in caplog.text


def test_a_bug_in_a_view_is_a_logged_500_problem_not_a_traceback(api, monkeypatch, caplog):
    from policyeditor.api.serializers_engine import CelRequestSerializer

    def explode(self, **kwargs):
        raise ZeroDivisionError("boom")

    monkeypatch.setattr(CelRequestSerializer, "is_valid", explode)
    response = api.post(CEL, {"expression": "1"})
    assert response.status_code == 500
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["detail"] == "internal error (ZeroDivisionError); it has been logged"
    assert "unexpected error in CelView" in caplog.text


def test_a_big_bundle_gets_a_longer_deadline_than_one_expression(api, monkeypatch):
    from policyeditor.api.examples import POLICY
    from policyeditor.engine.isolation import DEFAULT_TIMEOUT

    seen = []
    real = engine_gate.run_isolated

    def spy(fn, *args, timeout=None, **kwargs):
        seen.append((fn.__name__, timeout))
        return real(fn, *args, timeout=timeout, **kwargs)

    monkeypatch.setattr(engine_gate, "run_isolated", spy)
    api.post("/api/v1/validate", {"documents": [POLICY] * 100})
    api.post(CEL, {"expression": "1"})
    (name, big), (cel_name, small) = seen
    assert (name, cel_name) == ("validate_bundle", "evaluate_cel")
    assert big == pytest.approx(DEFAULT_TIMEOUT + 2.0)
    assert small is None  # the pool's own default


def test_an_unknown_api_path_is_a_problem_404(api):
    response = api.post("/api/v1/nothing-here", {})
    assert response.status_code == 404
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["detail"] == "no API endpoint at /api/v1/nothing-here"


def test_the_engine_really_runs_in_the_isolation_pool(api, monkeypatch):
    calls = []
    real = engine_gate.run_isolated

    def spy(fn, *args, **kwargs):
        calls.append(fn.__name__)
        return real(fn, *args, **kwargs)

    monkeypatch.setattr(engine_gate, "run_isolated", spy)
    assert api.post(CEL, {"expression": "1 + 1"}).json()["value"] == 2
    assert calls == ["evaluate_cel"]
