"""Impact runs made before the task queue: finished ones keep their rows, unfinished ones fail clearly."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("review", "0006_impactrun_defaulting")]


def _migrate(targets) -> object:
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    executor.loader.build_graph()
    return executor.loader.project_state(targets).apps


def _latest() -> list[tuple[str, str]]:
    return MigrationExecutor(connection).loader.graph.leaf_nodes()


@pytest.mark.django_db(transaction=True)
def test_finished_runs_become_result_rows_and_unfinished_ones_are_marked_failed():
    # Review goes back to before the task queue; the other apps stay as they are.
    others = [node for node in _latest() if node[0] != "review"]
    old = _migrate(BEFORE + others)
    user = old.get_model("auth", "User").objects.create(username="alice")
    draft = old.get_model("editor", "Draft").objects.create(name="d", owner=user, documents=[])
    revision = old.get_model("editor", "Revision").objects.create(
        draft=draft, number=1, documents=[]
    )
    run_model = old.get_model("review", "ImpactRun")
    row = {
        "kind": "Deployment",
        "namespace": "default",
        "name": "big",
        "CREATE": {"result": "deny", "message": "too many", "mutated": False},
        "UPDATE": {"result": "deny", "message": "too many", "mutated": False},
        "CREATE_before": {"result": "allow", "message": "", "mutated": False},
    }
    done = run_model.objects.create(
        draft=draft, revision=revision, total=1, position=1, rows=[row], done=True
    )
    going = run_model.objects.create(
        draft=draft, revision=revision, total=5, pending=[{}], done=False
    )
    try:
        new = _migrate(_latest())
        runs = new.get_model("review", "ImpactRun").objects
        assert runs.get(pk=done.pk).state == "done"
        failed = runs.get(pk=going.pk)
        assert failed.state == "failed" and "start it again" in failed.error
        result = new.get_model("review", "ImpactResult").objects.get(run_id=done.pk)
        assert (result.name, result.create_result, result.create_before, result.changed) == (
            "big",
            "deny",
            "allow",
            True,
        )
    finally:
        _migrate(_latest())


def _run_indexes() -> list[tuple[str, list[str]]]:
    """The non-unique indexes of the result rows, with their columns."""
    with connection.cursor() as cursor:
        constraints = connection.introspection.get_constraints(cursor, "review_impactresult")
    return sorted(
        (name, info["columns"])
        for name, info in constraints.items()
        if info["index"] and not info["unique"]
    )


@pytest.mark.django_db(transaction=True)
def test_the_result_rows_lose_only_their_index_on_the_run_alone_and_get_it_back_going_back():
    others = [node for node in _latest() if node[0] != "review"]
    try:
        old = _migrate([("review", "0009_sharelink_try_inputs")] + others)
        before = _run_indexes()
        assert ["run_id"] in [columns for _, columns in before]
        user = old.get_model("auth", "User").objects.create(username="alice")
        draft = old.get_model("editor", "Draft").objects.create(name="d", owner=user, documents=[])
        revision = old.get_model("editor", "Revision").objects.create(
            draft=draft, number=1, documents=[]
        )
        run = old.get_model("review", "ImpactRun").objects.create(
            draft=draft, revision=revision, total=1
        )
        old.get_model("review", "ImpactResult").objects.create(
            run=run, position=0, name="kept", create_result="deny", update_result="deny"
        )
        # Migration 0010 itself: later ones may add indexes of their own (0011, a partial one).
        new = _migrate([("review", "0010_impact_result_run_unindexed")] + others)
        after = _run_indexes()
        assert [columns for _, columns in after if columns == ["run_id"]] == []
        assert len(after) == len(before) - 1  # the five (run, column) indexes stay
        assert new.get_model("review", "ImpactResult").objects.get(run_id=run.pk).name == "kept"
        _migrate([("review", "0009_sharelink_try_inputs")] + others)
        assert _run_indexes() == before
    finally:
        _migrate(_latest())


@pytest.mark.django_db(transaction=True)
def test_rows_stored_before_the_api_servers_answers_get_those_their_result_decides():
    others = [node for node in _latest() if node[0] != "review"]
    try:
        old = _migrate([("review", "0013_impact_chunk_task_id")] + others)
        user = old.get_model("auth", "User").objects.create(username="alice")
        draft = old.get_model("editor", "Draft").objects.create(name="d", owner=user, documents=[])
        revision = old.get_model("editor", "Revision").objects.create(
            draft=draft, number=1, documents=[]
        )
        run = old.get_model("review", "ImpactRun").objects.create(
            draft=draft, revision=revision, total=3, state="done"
        )
        rows = old.get_model("review", "ImpactResult").objects
        for position, (create, update, before) in enumerate(
            [("allow", "deny", ""), ("error", "warn", "error"), ("skip", "audit", "deny")]
        ):
            rows.create(
                run=run,
                position=position,
                create_result=create,
                update_result=update,
                create_before=before,
                update_before=before,
            )
        new = _migrate([("review", "0014_impact_result_allowed")] + others)
        answers = new.get_model("review", "ImpactResult").objects.order_by("position")
        assert list(
            answers.values_list(
                "create_allowed", "update_allowed", "create_before_allowed", "update_before_allowed"
            )
        ) == [
            (True, False, None, None),  # no baseline: no answer before
            (None, True, None, None),  # an error's answer depended on its failurePolicy
            (True, True, False, False),
        ]
    finally:
        _migrate(_latest())
