"""Evaluating a stream of objects: outcomes, baselines, counts, and runaway objects in the pool."""

from __future__ import annotations

import pytest

from policyeditor.engine.impact import (
    Job,
    Summary,
    affected,
    allowed,
    changed,
    denied_newly,
    evaluate_stream,
    label,
    pack_batches,
    unpack,
)
from policyeditor.engine.isolation import WorkerPool
from tests.builders import bound, replica_limit
from tests.engine.impact.helpers import RUNAWAY_DEADLINE, deployment, looping_policy


def namespace(name: str, **labels: str) -> dict:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": labels}}


def test_each_object_gets_create_and_update_outcomes_and_the_summary_counts_them():
    objects = [deployment("small", 2), deployment("big", 9), namespace("default")]
    rows = list(evaluate_stream(Job(bound(replica_limit(5)), "1.34"), objects, pool=None))
    by_name = {row["name"]: row for row in rows}
    assert by_name["small"]["CREATE"]["result"] == "allow"
    assert by_name["big"]["UPDATE"]["result"] == "deny"
    assert "must be at most 5" in by_name["big"]["CREATE"]["message"]
    assert by_name["default"]["CREATE"]["result"] == "skip"
    summary = Summary()
    for row in rows:
        summary.add(row)
    assert summary.to_dict()["CREATE"] == {
        "allow": 1,
        "deny": 1,
        "warn": 0,
        "audit": 0,
        "skip": 1,
        "error": 0,
        "mutated": 0,
        "annotations": 0,
    }
    assert summary.total == 3
    assert by_name["small"]["CREATE"]["allowed"] is True
    assert by_name["big"]["CREATE"]["allowed"] is False


def labelled_only(failure_policy: str) -> dict:
    """A policy whose expression fails on an object without labels (no such key)."""
    policy = replica_limit(5, failurePolicy=failure_policy)
    policy["spec"]["validations"][0]["expression"] = "object.metadata.labels['tier'] == 'web'"
    return policy


def test_an_error_under_failure_policy_fail_is_not_allowed_and_is_a_new_denial():
    rows = list(
        evaluate_stream(Job(bound(labelled_only("Fail")), "1.34"), [deployment("d", 1)], pool=None)
    )
    assert rows[0]["CREATE"]["result"] == "error"
    assert rows[0]["CREATE"]["allowed"] is False
    assert denied_newly(rows[0])  # no baseline: "no policy" allowed it
    job = Job(bound(labelled_only("Fail")), "1.34", baseline=bound(replica_limit(5)))
    rows = list(evaluate_stream(job, [deployment("d", 1)], pool=None))
    assert denied_newly(rows[0]) and changed(rows[0])


def test_an_error_under_failure_policy_ignore_is_allowed_and_no_denial():
    rows = list(
        evaluate_stream(
            Job(bound(labelled_only("Ignore")), "1.34"), [deployment("d", 1)], pool=None
        )
    )
    assert rows[0]["CREATE"]["result"] == "error"
    assert rows[0]["CREATE"]["allowed"] is True
    assert not denied_newly(rows[0])
    assert affected(rows[0])  # the error is still something the policies did


def test_the_same_error_result_with_another_failure_policy_is_a_change():
    job = Job(bound(labelled_only("Fail")), "1.34", baseline=bound(labelled_only("Ignore")))
    rows = list(evaluate_stream(job, [deployment("d", 1)], pool=None))
    assert rows[0]["CREATE"]["result"] == rows[0]["CREATE_before"]["result"] == "error"
    assert changed(rows[0]) and denied_newly(rows[0])


def test_only_an_error_is_labelled_with_the_api_servers_answer():
    assert label("error", False) == "error (rejected)"
    assert label("error", True) == "error (admitted)"
    assert label("error", None) == "error"  # not known: no answer is claimed
    assert [label(result, False) for result in ("deny", "allow")] == ["deny", "allow"]


def test_rows_without_allowed_are_read_from_their_result_failing_closed():
    row = {"CREATE": {"result": "error"}, "UPDATE": {"result": "allow"}}
    assert not allowed(row["CREATE"]) and allowed(row["UPDATE"])
    assert denied_newly(row)


def test_without_a_baseline_the_summary_counts_as_changed_what_the_policies_act_on():
    rows = list(
        evaluate_stream(
            Job(bound(replica_limit(5)), "1.34"),
            [deployment("small", 2), deployment("big", 9), namespace("default")],
            pool=None,
        )
    )
    summary = Summary()
    for row in rows:
        summary.add(row)
    assert (summary.changed, summary.denied_newly) == (1, 1)
    assert [r["name"] for r in rows if affected(r)] == ["big"]


def test_outcomes_are_compared_with_the_baseline():
    job = Job(bound(replica_limit(3)), "1.34", baseline=bound(replica_limit(5)))
    rows = list(
        evaluate_stream(job, [deployment(f"d{i}", i) for i in range(7)], pool=None, batch=2)
    )
    assert [r["name"] for r in rows if changed(r)] == ["d4", "d5"]
    assert [r["name"] for r in rows if denied_newly(r)] == ["d4", "d5"]


def test_namespace_selectors_see_the_namespaces_given_to_the_job():
    selective = replica_limit(5)
    selective["spec"]["matchConstraints"]["namespaceSelector"] = {"matchLabels": {"env": "prod"}}
    job = Job(
        bound(selective),
        "1.34",
        namespaces={"prod": namespace("prod", env="prod"), "dev": namespace("dev")},
    )
    rows = list(
        evaluate_stream(job, [deployment("p", 9, "prod"), deployment("d", 9, "dev")], pool=None)
    )
    assert {r["name"]: r["CREATE"]["result"] for r in rows} == {"p": "deny", "d": "skip"}


@pytest.fixture
def pool():
    workers = WorkerPool(size=2, timeout=10.0)
    yield workers
    workers.close()


def test_objects_that_make_a_policy_run_away_become_errors_and_the_others_get_their_outcome(pool):
    objects = [
        deployment("ok-1", 2),
        deployment("slow-1", 2),
        deployment("big", 9),
        deployment("slow-2", 1),
    ]
    rows = list(
        evaluate_stream(
            Job(bound(looping_policy(5)), "1.34"),
            objects,
            pool=pool,
            batch=4,
            object_seconds=RUNAWAY_DEADLINE,
        )
    )
    results = {r["name"]: r["CREATE"]["result"] for r in rows}
    assert results == {"ok-1": "allow", "slow-1": "error", "big": "deny", "slow-2": "error"}
    assert "time limit" in rows[1]["CREATE"]["message"]
    assert rows[1]["CREATE"]["allowed"] is False  # fail closed: nothing shows it was admitted


def test_an_object_whose_evaluation_fills_the_memory_cap_is_a_not_allowed_error_row():
    policy = looping_policy(5)
    # Ignore: as an expression error the object was admitted before this was fixed.
    policy["spec"]["failurePolicy"] = "Ignore"
    objects = [deployment("ok", 2), deployment("slow-1", 2)]
    small = WorkerPool(size=1, timeout=30.0, memory_bytes=256 * 1024 * 1024)
    try:
        # A deadline far away: the cap, filled within tenths of a second, is what stops it.
        rows = list(
            evaluate_stream(Job(bound(policy), "1.34"), objects, pool=small, object_seconds=30)
        )
    finally:
        small.close()
    ok, slow = rows
    assert ok["CREATE"]["result"] == "allow"
    stopped = "evaluation exceeded the memory limit of 256 MiB and was stopped"
    for operation in ("CREATE", "UPDATE"):
        assert slow[operation]["result"] == "error"
        assert slow[operation]["allowed"] is False  # fail closed, as at the deadline
        assert slow[operation]["message"] == stopped


def test_in_process_an_object_that_runs_out_of_memory_is_a_not_allowed_error_row(monkeypatch):
    from policyeditor.engine.cel import strings_format

    def exhausted(*args, **kwargs):
        raise MemoryError

    # Only the slow-* objects reach the runaway's format calls.
    monkeypatch.setattr(strings_format, "format_string", exhausted)
    objects = [deployment("ok", 2), deployment("slow-1", 2), deployment("big", 9)]
    rows = list(evaluate_stream(Job(bound(looping_policy(5)), "1.34"), objects, pool=None))
    assert [r["CREATE"]["result"] for r in rows] == ["allow", "error", "deny"]
    assert rows[1]["CREATE"]["allowed"] is False
    assert "exceeded the memory" in rows[1]["CREATE"]["message"]


def test_an_object_only_the_revision_runs_away_on_is_a_new_denial_and_one_both_do_is_not(pool):
    from policyeditor.engine.impact import denied_newly

    objects = [deployment("slow-1", 2), deployment("ok", 2)]
    # The baseline allows what the revision runs away on: the revision is what changed.
    job = Job(bound(looping_policy(5)), "1.34", bound(replica_limit(5)))
    rows = list(evaluate_stream(job, objects, pool=pool, batch=2, object_seconds=RUNAWAY_DEADLINE))
    slow, ok = rows
    assert slow["CREATE"]["result"] == "error" and "time limit" in slow["CREATE"]["message"]
    assert slow["CREATE_before"]["result"] == "allow" and denied_newly(slow)
    assert ok["CREATE"]["result"] == ok["CREATE_before"]["result"] == "allow"
    # Both run away: the same stopped evaluation before and after, no new denial.
    both = Job(bound(looping_policy(5)), "1.34", bound(looping_policy(6)))
    (slow,) = evaluate_stream(both, objects[:1], pool=pool, object_seconds=RUNAWAY_DEADLINE)
    assert slow["CREATE"]["result"] == slow["CREATE_before"]["result"] == "error"
    assert not denied_newly(slow)


def test_past_the_budget_every_remaining_object_is_an_error(pool):
    objects = [deployment("slow-1", 2), deployment("ok", 2), deployment("ok-2", 2)]
    rows = list(
        evaluate_stream(
            Job(bound(looping_policy(5)), "1.34"),
            objects,
            pool=pool,
            batch=1,
            object_seconds=RUNAWAY_DEADLINE,
            budget_seconds=0.1,
        )
    )
    assert [r["CREATE"]["result"] for r in rows] == ["error", "error", "error"]
    assert "budget" in rows[-1]["CREATE"]["message"]


def test_parallel_batches_keep_the_order_of_the_objects(pool):
    objects = [deployment(f"d{i}", i % 8) for i in range(40)]
    rows = list(
        evaluate_stream(
            Job(bound(replica_limit(5)), "1.34"), objects, pool=pool, parallel=2, batch=7
        )
    )
    assert [r["name"] for r in rows] == [f"d{i}" for i in range(40)]
    assert sum(r["CREATE"]["result"] == "deny" for r in rows) == 10


def test_a_batch_ends_at_its_size_or_once_its_objects_weigh_enough():
    weighed = [(deployment(f"d{i}", 1), weight) for i, weight in enumerate([1, 1, 8, 1, 1, 1, 1])]
    sizes = [count for _, count, _ in pack_batches(weighed, size=3, weight=10)]
    # d0..d2 weigh 10: the batch ends there; then three light ones fill a batch; one is left.
    assert sizes == [3, 3, 1]
    assert [count for _, count, _ in pack_batches(weighed, size=3, weight=9)] == [3, 3, 1]
    assert [count for _, count, _ in pack_batches(weighed, size=7, weight=9)] == [3, 4]
    unpacked = [obj for batch in pack_batches(weighed, 2, 5) for obj in unpack(batch)]
    assert unpacked == [obj for obj, _ in weighed]
