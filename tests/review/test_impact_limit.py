"""The per-user limit of impact runs holds when one user starts runs at the same moment."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from policyeditor.review import audit, impact_runs, workflow
from policyeditor.review.models import ImpactRun
from policyeditor.review.workflow import WorkflowError
from tests.engine.impact.helpers import deployment, kubectl_json


@pytest.fixture(autouse=True)
def impact_dir(settings, tmp_path):
    settings.POLICYEDITOR_IMPACT_DIR = str(tmp_path / "impact")
    return tmp_path / "impact"


@pytest.mark.django_db(transaction=True)
def test_a_second_start_waits_for_the_first_and_is_refused_once_the_first_is_saved(
    draft, alice, settings, monkeypatch, impact_dir
):
    settings.POLICYEDITOR_IMPACT_RUNS_PER_USER = 1
    revision = workflow.latest_revision(draft)
    inside, release = threading.Event(), threading.Event()
    record = audit.record

    def record_then_hold(*args, **kwargs):
        # The first start holds its transaction open here, its run saved and not yet committed.
        record(*args, **kwargs)
        if threading.current_thread().name == "first":
            inside.set()
            assert release.wait(30)

    monkeypatch.setattr(audit, "record", record_then_hold)
    outcome: dict[str, object] = {}

    def start(name: str) -> None:
        try:
            outcome[name] = impact_runs.start_run(
                alice, draft, revision, kubectl_json([deployment(name, 1)])
            )
        except WorkflowError as error:
            outcome[name] = error
        finally:
            connection.close()

    first = threading.Thread(target=start, args=("first",), name="first")
    second = threading.Thread(target=start, args=("second",), name="second")
    first.start()
    assert inside.wait(30)
    second.start()
    # The second passed the check made before storing its dump (the first's run is not
    # committed), and must now wait for the first instead of counting without it.
    second.join(0.5)
    waited = second.is_alive()
    release.set()
    first.join(30)
    second.join(30)
    assert waited, "the second start did not wait for the first one's transaction"
    assert isinstance(outcome["first"], ImpactRun)
    assert isinstance(outcome["second"], WorkflowError)
    assert "You already have 1 impact run going" in str(outcome["second"])
    assert list(ImpactRun.objects.values_list("pk", flat=True)) == [outcome["first"].pk]
    # The refused start's dump was stored before the check; it is gone, the first's stays.
    stored = [path for path in impact_dir.rglob("*") if path.is_file()]
    assert [path.name for path in stored] == [outcome["first"].dump.name.rsplit("/", 1)[-1]]
