"""A real `manage.py db_worker` process evaluates a run whose policy loops on some objects."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.urls import reverse

from policyeditor.editor.services import save_draft
from policyeditor.engine.manifests.loading import dump_documents
from policyeditor.review import impact_runs, workflow
from policyeditor.review.models import ImpactRun
from tests.builders import bound
from tests.engine.impact.helpers import deployment, looping_policy
from tests.review.impact_worker import test_database_url

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def draft(bound_draft):
    """The sample draft with its policy bound: impact analysis ignores an unbound policy."""
    return bound_draft


ROOT = Path(__file__).resolve().parents[2]


def test_objects_a_policy_loops_on_are_errors_the_run_finishes_and_pages_are_served_meanwhile(
    client, draft, alice, settings, tmp_path
):
    settings.POLICYEDITOR_IMPACT_DIR = str(tmp_path / "impact")
    draft.refresh_from_db()
    save_draft(draft, bound(looping_policy(5)), expected_revision=draft.revision, author=alice)
    objects = [deployment(f"ok-{i}", i % 8) for i in range(200)]
    objects[50:50] = [deployment("slow-1", 1)]
    objects[150:150] = [deployment("slow-2", 1)]
    dump = dump_documents([{"apiVersion": "v1", "kind": "List", "items": objects}])
    run = impact_runs.start_run(alice, draft, workflow.latest_revision(draft), dump)
    env = {
        **os.environ,
        "DATABASE_URL": test_database_url(),
        "POLICYEDITOR_IMPACT_DIR": settings.POLICYEDITOR_IMPACT_DIR,
        "DEBUG": "1",
        "PYTHONPATH": str(ROOT),
        # Not RUNAWAY_DEADLINE: the worker that replaces a killed one compiles the policy again
        # inside its first object's deadline, and on a loaded machine (the suite's other process,
        # a browser test) 0.3 s made ordinary objects errors. The runaway may now fill the
        # memory cap first: its row is an error either way, which is what this test asks.
        "POLICYEDITOR_EVAL_TIMEOUT": "1.0",
    }
    worker = subprocess.Popen(
        [sys.executable, "manage.py", "db_worker", "--batch", "--no-startup-delay"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        client.force_login(alice)
        served = 0
        # While the worker evaluates (two objects run into the deadline), other pages answer.
        while worker.poll() is None:
            response = client.get(reverse("review:inbox"))
            assert response.status_code == 200
            served += 1
            time.sleep(0.2)
        assert served > 0
        assert worker.returncode == 0, worker.stderr.read() if worker.stderr else ""
    finally:
        if worker.poll() is None:
            worker.kill()
        worker.wait(timeout=30)
    run.refresh_from_db()
    assert run.error == ""
    assert run.state == ImpactRun.State.DONE and run.position == 202
    errors = impact_runs.filter_results(run, result="error")
    assert sorted(row.name for row in errors) == ["slow-1", "slow-2"]
    # Which limit stops them first (the worker's deadline or the evaluation's own cancellation)
    # depends on the machine's speed; either way the row is an error that says so.
    assert all(row.create_result == "error" and row.create_message for row in errors)
    assert run.summary["CREATE"]["allow"] + run.summary["CREATE"]["deny"] == 200
    assert django_settings.TASKS["default"]["BACKEND"] == "django_tasks_db.DatabaseBackend"
