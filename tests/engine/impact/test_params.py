"""Param objects of the dump: found as the cluster would find them, the draft's first, capped."""

from __future__ import annotations

import copy

import pytest

from policyeditor.engine import admission
from policyeditor.engine.impact import (
    MAX_PARAM_OBJECTS,
    DumpError,
    Job,
    ParamCollector,
    evaluate_stream,
    param_kinds,
)
from policyeditor.engine.isolation import WorkerPool
from tests.engine.impact.helpers import (
    config_map,
    deployment,
    params_binding,
    params_draft,
    params_policy,
)
from tests.vectors import load_vectors

TEAM_LIMIT = config_map("prod", "team-limit", "3", policy="replicas")


def outcomes(job: Job, objects: list[dict], pool: WorkerPool | None = None) -> dict[str, str]:
    rows = evaluate_stream(job, objects, pool=pool)
    return {row["name"]: row["CREATE"]["result"] for row in rows}


def collected(documents: list[dict], dump: list[dict]) -> list[dict]:
    """What a pre-pass over `dump` collects for `documents`."""
    collector = ParamCollector(param_kinds(documents))
    for obj in dump:
        collector.add(obj)
    return collector.objects


@pytest.fixture(scope="module")
def pool():
    workers = WorkerPool(size=2, timeout=10.0)
    yield workers
    workers.close()


def test_a_param_object_selected_from_the_dump_denies_what_the_drafts_unselected_one_allows():
    draft = params_draft()
    dump = [deployment("big", 4, "prod"), TEAM_LIMIT]
    params = collected(draft, dump)
    assert params == [TEAM_LIMIT]
    rows = list(evaluate_stream(Job(draft, "1.34", params=params), dump[:1], pool=None))
    assert rows[0]["CREATE"]["result"] == "deny"
    assert "at most 3" in rows[0]["CREATE"]["message"]
    # Without the dump's params the selector finds nothing, and Allow lets the object through.
    assert outcomes(Job(draft, "1.34"), dump[:1]) == {"big": "skip"}


def test_every_param_object_a_selector_matches_is_evaluated_and_any_denial_denies():
    draft = params_draft()
    params = [
        config_map("prod", "a-roomy", "8", policy="replicas"),
        config_map("prod", "b-tight", "3", policy="replicas"),
        config_map("prod", "unselected", "1"),
    ]
    objects = [deployment("two", 2, "prod"), deployment("four", 4, "prod")]
    job = Job(draft, "1.34", params=params)
    assert outcomes(job, objects) == {"two": "allow", "four": "deny"}
    row = list(evaluate_stream(job, objects[1:], pool=None))[0]
    assert "at most 3" in row["CREATE"]["message"]


def test_a_param_object_named_by_the_binding_is_found_in_the_dump_alone():
    draft = [params_policy(), params_binding(name="team-limit", parameterNotFoundAction="Deny")]
    objects = [deployment("big", 4, "prod"), deployment("small", 2, "prod")]
    assert outcomes(Job(draft, "1.34", params=[TEAM_LIMIT]), objects) == {
        "big": "deny",
        "small": "allow",
    }
    # The cluster's own answer when the dump lacks it: no params, and Deny rejects.
    rows = list(evaluate_stream(Job(draft, "1.34"), objects[:1], pool=None))
    assert rows[0]["CREATE"]["result"] == "error"
    assert "no params found" in rows[0]["CREATE"]["message"]


def test_a_namespaced_param_kind_is_looked_up_in_the_requests_namespace_or_the_one_named():
    draft = [params_policy(), params_binding(name="limit")]
    params = [config_map("dev", "limit", "1"), config_map("prod", "limit", "5")]
    objects = [deployment("d", 3, "dev"), deployment("p", 3, "prod"), deployment("q", 3, "qa")]
    assert outcomes(Job(draft, "1.34", params=params), objects) == {
        "d": "deny",
        "p": "allow",
        "q": "skip",  # no such ConfigMap in qa: Allow
    }
    shared = [params_policy(), params_binding(name="limit", namespace="dev")]
    assert set(outcomes(Job(shared, "1.34", params=params), objects).values()) == {"deny"}


def test_the_drafts_param_object_wins_over_the_same_object_in_the_dump():
    draft = [*params_draft(), config_map("prod", "team-limit", "10", policy="replicas")]
    job = Job(draft, "1.34", params=[TEAM_LIMIT, config_map("prod", "other", "5")])
    # Evaluated once, with the draft's limit of 10: the dump's 3 would deny.
    assert outcomes(job, [deployment("big", 4, "prod"), deployment("huge", 11, "prod")]) == {
        "big": "allow",
        "huge": "deny",
    }


def test_the_baseline_finds_the_dumps_param_objects_too():
    baseline = params_draft()
    revision = [params_policy("true"), *copy.deepcopy(baseline[1:])]
    job = Job(revision, "1.34", baseline=baseline, params=[TEAM_LIMIT])
    row = list(evaluate_stream(job, [deployment("big", 4, "prod")], pool=None))[0]
    assert (row["CREATE_before"]["result"], row["CREATE"]["result"]) == ("deny", "allow")


def test_a_batch_is_sent_the_param_objects_of_its_namespaces_the_named_ones_and_cluster_scoped():
    draft = [params_policy(), params_binding(name="limit", namespace="shared")]
    params = [
        config_map("dev", "limit", "1"),
        config_map("prod", "limit", "5"),
        config_map("shared", "limit", "2"),
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "odd"}},
    ]
    job = Job(draft, "1.34", params=params)
    sent = job.for_names(["prod"]).params
    assert sorted((p["metadata"].get("namespace", ""), p["metadata"]["name"]) for p in sent) == [
        ("", "odd"),
        ("prod", "limit"),
        ("shared", "limit"),
    ]
    assert job.for_names([]).params[0]["metadata"]["name"] == "odd"
    assert Job(draft, "1.34").for_names(["prod"]).params == []


def test_a_batch_without_the_custom_param_objects_it_needs_still_knows_their_kind():
    # A custom paramKind whose CRD is not in force is known (and namespaced) from its objects
    # alone: narrowing a batch's params must not turn "no params found" into "not known".
    policy = params_policy("true")
    policy["spec"]["paramKind"] = {"apiVersion": "example.com/v1", "kind": "Limit"}
    draft = [policy, params_binding(name="limit", parameterNotFoundAction="Deny")]
    limit = {"apiVersion": "example.com/v1", "kind": "Limit"}
    params = [{**limit, "metadata": {"name": "limit", "namespace": "dev"}}]
    objects = [deployment("p", 3, "prod"), deployment("d", 3, "dev")]
    job = Job(draft, "1.34", params=params)
    assert len(job.for_names(["prod"]).params) == 1  # dev's, which no prod lookup reads
    rows = {row["name"]: row["CREATE"] for row in evaluate_stream(job, objects, pool=None)}
    assert rows["d"]["result"] == "allow"
    assert rows["p"]["result"] == "error" and "no params found" in rows["p"]["message"]


def test_isolated_workers_evaluate_each_batch_with_the_param_objects_sent_with_it(pool):
    draft = [params_policy(), params_binding(name="limit")]
    params = [config_map(f"team-{i}", "limit", str(i)) for i in range(6)]
    objects = [deployment(f"d{i}", 3, f"team-{i}") for i in range(6)]
    rows = evaluate_stream(Job(draft, "1.34", params=params), objects, pool=pool, batch=2)
    assert [row["CREATE"]["result"] for row in rows] == ["deny"] * 3 + ["allow"] * 3


def test_the_collector_keeps_only_objects_of_a_param_kind_of_the_revision_or_the_baseline():
    custom = params_policy()
    custom["spec"]["paramKind"] = {"apiVersion": "example.com/v1", "kind": "Limit"}
    kinds = param_kinds(params_draft(), [custom])
    assert kinds == {("v1", "ConfigMap"), ("example.com/v1", "Limit")}
    collector = ParamCollector(kinds)
    widget = {"apiVersion": "example.com/v2", "kind": "Limit", "metadata": {"name": "w"}}
    limit = {"apiVersion": "example.com/v1", "kind": "Limit", "metadata": {"name": "l"}}
    for obj in (deployment("d", 1), TEAM_LIMIT, widget, limit):
        collector.add(obj)
    assert collector.objects == [TEAM_LIMIT, limit]
    assert param_kinds([params_binding(name="x")], None) == frozenset()


def test_past_the_limits_the_collector_says_which_kind_and_how_many_it_takes():
    collector = ParamCollector(param_kinds(params_draft()), max_objects=2)
    collector.add(TEAM_LIMIT)
    collector.add(TEAM_LIMIT)
    with pytest.raises(DumpError) as error:
        collector.add(TEAM_LIMIT)
    assert str(error.value) == (
        "the dump holds more than 2 param objects (the paramKinds of the policies) with its "
        "ConfigMap (v1) objects; a run takes at most 2"
    )
    heavy = ParamCollector(param_kinds(params_draft()), max_bytes=2 * 1024 * 1024)
    big = config_map("prod", "big", "1" * (3 * 1024 * 1024))
    with pytest.raises(DumpError, match=r"larger than 2 MiB with its ConfigMap \(v1\) objects"):
        heavy.add(big)
    assert MAX_PARAM_OBJECTS == 10_000


def test_a_binding_without_param_ref_evaluates_with_null_params_whatever_the_dump_holds():
    # kubernetes/apiserver condition_test.go "test deny paramKind without paramRef".
    vector = next(
        record
        for record in load_vectors("cel.jsonl")
        if record["source"]["test"] == "TestCondition/test deny paramKind without paramRef"
    )
    policy = params_policy(vector["expr"])
    binding = params_binding()
    del binding["spec"]["paramRef"]
    obj = deployment("big", 4, "prod")
    rows = list(
        evaluate_stream(Job([policy, binding], "1.34", params=[TEAM_LIMIT]), [obj], pool=None)
    )
    assert vector["expect"] is False
    assert rows[0]["CREATE"]["result"] == "deny"  # `params != null` is false: params stays null


def test_impact_and_a_single_evaluation_agree_when_the_param_object_is_given_as_a_document():
    draft = params_draft()
    for obj in (deployment("big", 4, "prod"), deployment("small", 2, "prod")):
        request = admission.AdmissionRequest.build(object=obj, version="1.34")
        alone = admission.evaluate([*draft, TEAM_LIMIT], request, version="1.34")
        row = list(evaluate_stream(Job(draft, "1.34", params=[TEAM_LIMIT]), [obj], pool=None))[0]
        assert row["CREATE"]["result"] == alone.result
        assert row["CREATE"]["allowed"] is alone.allowed
