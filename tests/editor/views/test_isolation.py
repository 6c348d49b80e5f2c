"""Editor views run user CEL in the isolation pool: a runaway gives a limit's message, not a hang."""

from __future__ import annotations

import time

import pytest
from django.urls import reverse

from policyeditor.core import engine_gate
from policyeditor.editor.services import create_draft
from policyeditor.engine import isolation
from policyeditor.engine.isolation import IsolationError, WorkerPool
from tests.builders import replica_limit as policy
from tests.editor.formhtml import form_data, postable

pytestmark = pytest.mark.django_db

# Slow and huge in practice while its runtime cost stays tiny (`format` counts 1 here, see
# docs/fidelity.md; `+` and `replace` are charged by size and stopped by the cost limit): only
# the deadline stops it.
RUNAWAY = (
    "['a']" + ".map(x, '%s%s%s%s%s%s%s%s'.format([x, x, x, x, x, x, x, x]))" * 10 + ".size() > 0"
)
DEPLOYMENT = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\n"


@pytest.fixture
def draft(alice):
    return create_draft(alice, [policy(5)], name="runaway")


def _form(client, draft, expression: str) -> dict:
    data = postable(form_data(client.get(draft.get_absolute_url()).content.decode()))
    key = next(k for k in data if ".spec.validations." in k and k.endswith(".expression"))
    data[key] = [expression]
    return data


def test_a_runaway_expression_in_try_it_is_stopped_with_the_time_limit_message(
    alice_client, draft, monkeypatch
):
    data = _form(alice_client, draft, RUNAWAY)
    data["try_object"] = [DEPLOYMENT]
    # The runaway fills the worker's memory cap within 1.2 to 3 s, the machine's speed deciding,
    # and is then stopped with the memory limit's message: a deadline well inside that is what
    # must stop it here.
    monkeypatch.setattr(engine_gate, "DEFAULT_TIMEOUT", 0.3)
    started = time.monotonic()
    response = alice_client.post(
        reverse("editor:draft_try", args=[draft.pk]), data, headers={"HX-Request": "true"}
    )
    took = time.monotonic() - started
    monkeypatch.undo()
    assert response.status_code == 200
    assert "evaluation exceeded the time limit" in response.content.decode()
    assert took < 5  # the deadline, not the seconds the expression would take
    # The pool is usable again right away: a normal evaluation answers.
    data = _form(alice_client, draft, "object.spec.replicas <= 5")
    data["try_object"] = [DEPLOYMENT.replace("metadata", "spec: {replicas: 7}\nmetadata")]
    again = alice_client.post(
        reverse("editor:draft_try", args=[draft.pk]), data, headers={"HX-Request": "true"}
    )
    assert "must be at most 5" in again.content.decode()


@pytest.fixture
def small_memory_pool(monkeypatch):
    """The shared pool, replaced by one whose workers may use 256 MiB, under a 30 s deadline."""
    pool = WorkerPool(size=1, timeout=30.0, memory_bytes=256 * 1024 * 1024)
    monkeypatch.setattr(isolation, "_shared", pool)
    monkeypatch.setattr(engine_gate, "DEFAULT_TIMEOUT", 30.0)
    yield pool
    pool.close()


def test_a_runaway_expression_that_fills_the_memory_cap_in_try_it_shows_the_memory_limit(
    alice_client, draft, small_memory_pool
):
    data = _form(alice_client, draft, RUNAWAY)
    data["try_object"] = [DEPLOYMENT]
    response = alice_client.post(
        reverse("editor:draft_try", args=[draft.pk]), data, headers={"HX-Request": "true"}
    )
    html = response.content.decode()
    assert response.status_code == 200
    # The same stop as at the deadline, never cel-expr-python's text as the expression's error.
    assert "evaluation exceeded the memory limit of 256 MiB and was stopped" in html
    assert "RESOURCE_EXHAUSTED" not in html and "bad_alloc" not in html
    assert small_memory_pool.restarts == 1  # the worker that ran out is not used again
    data = _form(alice_client, draft, "object.spec.replicas <= 5")
    data["try_object"] = [DEPLOYMENT.replace("metadata", "spec: {replicas: 7}\nmetadata")]
    again = alice_client.post(
        reverse("editor:draft_try", args=[draft.pk]), data, headers={"HX-Request": "true"}
    )
    assert "must be at most 5" in again.content.decode()


@pytest.fixture
def limit_hit(monkeypatch):
    """The pool reports every call as past its deadline."""
    calls = []

    def stopped(fn, *args, timeout=None, **kwargs):
        calls.append(fn.__name__)
        raise IsolationError(
            "timeout", "evaluation exceeded the time limit of 1.5s and was stopped"
        )

    def started(fn, *args, timeout=None, **kwargs):
        return lambda: stopped(fn, *args, timeout=timeout, **kwargs)

    monkeypatch.setattr(engine_gate, "run_isolated", stopped)
    monkeypatch.setattr(engine_gate, "start_isolated", started)
    return calls


def test_live_validation_that_hits_the_deadline_answers_200_with_the_message(
    alice_client, draft, limit_hit
):
    response = alice_client.post(
        reverse("editor:draft_validate", args=[draft.pk]),
        _form(alice_client, draft, RUNAWAY),
        headers={"HX-Request": "true"},
    )
    html = response.content.decode()
    assert response.status_code == 200
    assert "evaluation exceeded the time limit of 1.5s" in html
    assert "1 error" in html
    assert limit_hit == ["validate_form"]


def test_saved_case_runs_that_hit_the_deadline_show_the_message_in_the_tests_tab(
    alice_client, alice, draft, limit_hit
):
    from policyeditor.review import testcases

    case = {
        "name": "c",
        "object": {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "w", "namespace": "default"},
        },
        "expect": {"result": "allow"},
    }
    testcases.save_case(alice, draft, case)
    response = alice_client.post(
        reverse("editor:draft_tests", args=[draft.pk]),
        _form(alice_client, draft, RUNAWAY),
        headers={"HX-Request": "true"},
    )
    assert response.status_code == 200
    assert "evaluation exceeded the time limit" in response.content.decode()
    assert limit_hit == ["run_suite_files_with_coverage"]
