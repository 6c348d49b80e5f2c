"""Impact runs with param objects in the dump: read before any chunk, seen by every chunk task."""

from __future__ import annotations

import pytest

from policyeditor.editor.services import create_draft
from policyeditor.engine.impact import params as impact_params
from policyeditor.review import impact_reader, impact_runs, impact_store, workflow
from policyeditor.review.models import ImpactChunk, ImpactRun
from tests.builders import bound, replica_limit
from tests.engine.impact.helpers import (
    config_map,
    deployment,
    kubectl_json,
    params_binding,
    params_draft,
    params_policy,
)
from tests.review.impact_worker import work

pytestmark = pytest.mark.django_db

TEAM_LIMIT = config_map("prod", "team-limit", "3", policy="replicas")


@pytest.fixture(autouse=True)
def impact_dir(settings, tmp_path):
    settings.POLICYEDITOR_IMPACT_DIR = str(tmp_path / "impact")


def run_of(alice, documents: list[dict], objects: list[dict]) -> ImpactRun:
    draft = create_draft(alice, documents, name="replicas-from-params")
    revision = workflow.latest_revision(draft)
    run = impact_runs.start_run(alice, draft, revision, kubectl_json(objects))
    work()
    run.refresh_from_db()
    return run


def results(run: ImpactRun) -> dict[str, str]:
    return {row.name: row.create_result for row in run.results.all()}


def test_a_param_object_the_binding_selects_in_the_dump_denies_in_a_web_run(alice):
    run = run_of(alice, params_draft(), [deployment("big", 4, "prod"), TEAM_LIMIT])
    assert run.state == "done", run.error
    assert results(run) == {"big": "deny", "team-limit": "skip"}
    assert "at most 3" in run.results.get(name="big").create_message
    assert impact_store.run_params(run) == [TEAM_LIMIT]


def test_param_objects_after_the_objects_are_seen_by_every_chunk(alice, monkeypatch):
    monkeypatch.setattr(impact_reader, "CHUNK", 10)
    monkeypatch.setattr(impact_reader, "BATCH", 5)
    draft = [params_policy(), params_binding(name="limit", parameterNotFoundAction="Deny")]
    objects = [deployment(f"d{i}", i % 5, f"team-{i % 3}") for i in range(40)]
    limits = [config_map(f"team-{n}", "limit", str(n + 1)) for n in range(3)]
    run = run_of(alice, draft, [*objects, *limits])
    assert run.state == "done", run.error
    assert ImpactChunk.objects.filter(run=run).count() > 3
    outcome = results(run)
    assert {outcome[f"d{i}"] for i in range(40)} == {"allow", "deny"}  # never "no params found"
    assert all(outcome[f"d{i}"] == ("deny" if i % 5 > i % 3 + 1 else "allow") for i in range(40))


def test_a_paramref_name_found_only_in_the_dump_is_used_and_the_drafts_copy_wins(alice):
    draft = [
        params_policy(),
        params_binding(name="team-limit", parameterNotFoundAction="Deny"),
        config_map("dev", "team-limit", "9"),
    ]
    dump = [
        deployment("big", 4, "prod"),
        deployment("dev-big", 4, "dev"),
        TEAM_LIMIT,
        config_map("dev", "team-limit", "1"),
    ]
    run = run_of(alice, draft, dump)
    assert run.state == "done", run.error
    outcome = results(run)
    assert (outcome["big"], outcome["dev-big"]) == ("deny", "allow")


def test_too_many_param_objects_fail_the_run_with_the_kind_and_the_limit(alice, monkeypatch):
    monkeypatch.setattr(impact_params, "MAX_PARAM_OBJECTS", 2)
    dump = [deployment("big", 4, "prod"), *(config_map("prod", f"c{i}", "1") for i in range(3))]
    run = run_of(alice, params_draft(), dump)
    assert run.state == "failed"
    assert run.error == (
        "Cannot read the dump: the dump holds more than 2 param objects (the paramKinds of the "
        "policies) with its ConfigMap (v1) objects; a run takes at most 2"
    )
    assert not run.results.exists()


def test_a_run_whose_param_objects_are_gone_fails_rather_than_evaluating_without_them(
    alice, monkeypatch
):
    # A chunk task finding no param file (a run read by a version before them) stops the run.
    monkeypatch.setattr(impact_reader, "write_params", lambda run_id, params: None)
    run = run_of(alice, params_draft(), [deployment("big", 4, "prod"), TEAM_LIMIT])
    assert run.state == "failed"
    assert "Cannot read the objects of chunk 0" in run.error and "params" in run.error


def test_a_run_without_a_param_kind_reads_the_dump_once(alice, monkeypatch):
    passes = []
    read_params = impact_reader.Reader._read_params
    monkeypatch.setattr(
        impact_reader.Reader,
        "_read_params",
        lambda self, kinds: passes.append(kinds) or read_params(self, kinds),
    )
    run = run_of(alice, bound(replica_limit(3)), [deployment("big", 4, "prod"), TEAM_LIMIT])
    assert run.state == "done" and results(run)["big"] == "deny"
    assert passes == []
    assert not impact_store.params_path(run.pk).exists()
    run = run_of(alice, params_draft(), [deployment("big", 4, "prod"), TEAM_LIMIT])
    assert passes == [{("v1", "ConfigMap")}]


def test_the_param_pass_renews_the_readers_hold_and_stops_when_the_run_is_cancelled(
    alice, monkeypatch
):
    monkeypatch.setattr(impact_reader, "CHUNK", 10)
    leases = []
    add = impact_params.ParamCollector.add

    def add_and_watch(self, obj):
        run = ImpactRun.objects.get()
        leases.append(run.read_lease)
        if len(leases) == 25:
            impact_runs.cancel_run(alice, run)
        add(self, obj)

    monkeypatch.setattr(impact_params.ParamCollector, "add", add_and_watch)
    dump = [deployment(f"d{i}", 1, "prod") for i in range(40)]
    run = run_of(alice, params_draft(), dump)
    assert run.state == "cancelled"
    assert len(leases) == 30  # stopped at the renewal after the cancel
    assert leases[0] < leases[10] < leases[20]
    assert not ImpactChunk.objects.filter(run=run).exists()
