"""Impact runs on the task queue: queued, read, chunked, evaluated by a worker, counted in SQL."""

from __future__ import annotations

import gzip
from datetime import timedelta
from pathlib import Path

import pytest
from django.db import connection
from django.urls import reverse
from django.utils import timezone

from policyeditor.engine import impact
from policyeditor.engine.manifests.loading import dump_documents
from policyeditor.review import impact_reader, impact_runs, impact_tasks, workflow
from policyeditor.review.impact_store import insert_results
from policyeditor.review.models import ImpactChunk, ImpactResult, ImpactRun
from policyeditor.review.workflow import NotAllowed, WorkflowError
from tests.builders import bound
from tests.builders import replica_limit as policy
from tests.engine.impact.helpers import deployment, kubectl_json, looping_policy
from tests.review.conftest import edit
from tests.review.impact_worker import work

pytestmark = pytest.mark.django_db


@pytest.fixture
def draft(bound_draft):
    """The sample draft with its policy bound: impact analysis ignores an unbound policy."""
    return bound_draft


@pytest.fixture(autouse=True)
def impact_dir(settings, tmp_path):
    settings.POLICYEDITOR_IMPACT_DIR = str(tmp_path / "impact")


def namespace(name: str, **labels: str) -> dict:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": labels}}


def kubectl_list(items: list[dict]) -> str:
    return dump_documents([{"apiVersion": "v1", "kind": "List", "items": items}])


def finished(run: ImpactRun) -> ImpactRun:
    work()
    run.refresh_from_db()
    return run


def test_a_run_is_queued_then_a_worker_reads_chunks_evaluates_and_compares_with_the_approved_revision(
    draft, alice, bob, monkeypatch
):
    workflow.request_review(alice, draft)
    workflow.approve(bob, draft, revision_number=1)
    edit(draft, alice, 3)
    monkeypatch.setattr(impact_reader, "CHUNK", 10)
    dump = kubectl_list([deployment(f"d{i}", i % 7) for i in range(25)])
    run = impact_runs.start_run(alice, draft, workflow.latest_revision(draft), dump)
    assert run.state == "queued" and run.baseline.number == 1
    run = finished(run)
    assert run.state == "done" and run.total == 25 and run.position == 25 and run.percent == 100
    assert ImpactChunk.objects.filter(run=run).count() == 3
    # replicas 4 and 5 were allowed by the limit of 5 and are denied by the limit of 3
    changed = impact_runs.filter_results(run, only_changed=True)
    assert {r.name for r in changed} == {f"d{i}" for i in range(25) if i % 7 in (4, 5)}
    assert run.summary["CREATE"]["deny"] == sum(1 for i in range(25) if i % 7 > 3)
    assert list(run.results.values_list("position", flat=True)) == list(range(25))


def test_namespace_selectors_see_the_namespaces_of_both_dumps_and_missing_ones_are_listed(
    draft, alice
):
    selective = policy(5)
    selective["spec"]["matchConstraints"]["namespaceSelector"] = {"matchLabels": {"env": "prod"}}
    from policyeditor.editor.services import save_draft

    draft.refresh_from_db()
    save_draft(draft, bound(selective), expected_revision=draft.revision, author=alice)
    dump = kubectl_list(
        [deployment("p", 9, "prod"), deployment("d", 9, "dev"), deployment("x", 9, "gone")]
    )
    namespaces = kubectl_list([namespace("prod", env="prod")])
    run = impact_runs.start_run(
        alice,
        draft,
        workflow.latest_revision(draft),
        dump + "---\n" + dump_documents([namespace("dev")]),
        namespaces,
    )
    run = finished(run)
    results = {row.name: row.create_result for row in run.results.all()}
    assert results == {"p": "deny", "d": "skip", "x": "skip", "dev": "skip"}
    assert run.missing_namespaces == ["gone"]


def test_rows_are_filtered_and_counted_in_sql(draft, alice):
    objects = [
        deployment("a", 2),
        deployment("b", 4, "prod"),
        deployment("c", 9),
        namespace("prod"),
    ]
    run = finished(
        impact_runs.start_run(alice, draft, workflow.latest_revision(draft), kubectl_list(objects))
    )
    names = lambda rows: [r.name for r in rows]  # noqa: E731
    assert names(impact_runs.filter_results(run, result="deny")) == ["c"]
    assert names(impact_runs.filter_results(run, result="allow", operation="UPDATE")) == ["a", "b"]
    assert names(impact_runs.filter_results(run, namespace="prod")) == ["b"]
    assert names(impact_runs.filter_results(run, kind="Namespace")) == ["prod"]
    assert names(impact_runs.filter_results(run, text="B")) == ["b"]
    assert impact_runs.summarize(run)["total"] == 4


# Each operation's (result, allowed): None is an answer not known (a row stored before it was).
COMBOS = [
    (create, update, create_mutated, update_mutated, changed, space)
    for create, update in [
        (("allow", True), ("deny", False)),
        (("deny", False), ("allow", True)),
        (("error", False), ("error", True)),
        (("error", None), ("error", False)),
        (("allow", True), ("allow", True)),
        (("warn", True), ("skip", True)),
    ]
    for create_mutated, update_mutated in [(False, False), (True, False), (False, True)]
    for changed in (False, True)
    for space in ("a", "b")
]
# The baseline's (result, allowed) of row i, both operations: BEFORES[i % 5]; "": none.
BEFORES = [("", None), ("allow", True), ("error", True), ("deny", False), ("error", None)]


def _rows_of_every_combination(run: ImpactRun) -> None:
    """Replace the run's rows with one row per combination of COMBOS (even ones Secrets)."""
    run.results.all().delete()
    values = []
    for i, (create, update, create_mutated, update_mutated, changed, space) in enumerate(COMBOS):
        before, before_allowed = BEFORES[i % len(BEFORES)]
        kind = "Secret" if i % 2 else "ConfigMap"
        values.append(
            (run.pk, i, "v1", kind, space, f"r{i}", create[0], update[0], before, before)
            + (create[1], update[1], before_allowed, before_allowed)
            + (create_mutated, update_mutated, 0, changed, "", "")
        )
    insert_results(values)


def _selects(result: str, outcome: tuple[str, bool | None], mutated: bool, i: int) -> bool:
    """Whether the result filter selects one operation of row i, read the plain way."""
    before, before_allowed = BEFORES[i % len(BEFORES)]
    if result == "mutated":
        return mutated
    if result == "rejected":
        return outcome[1] is False
    if result == "deniedNewly":
        return outcome[1] is False and (not before or before_allowed is True)
    return outcome[0] == result


def _plainly(result, operation, only_changed, space, kind, text) -> list[str]:
    """The names of COMBOS' rows the filters select, read the plain way."""
    names = []
    for i, (create, update, c_mut, u_mut, changed, row_space) in enumerate(COMBOS):
        by_operation = {"CREATE": (create, c_mut), "UPDATE": (update, u_mut)}
        sides = [by_operation[operation]] if operation else by_operation.values()
        hit = not result or any(_selects(result, outcome, mutated, i) for outcome, mutated in sides)
        row_kind = "Secret" if i % 2 else "ConfigMap"
        found = not text or any(text in value.lower() for value in (row_kind, row_space, f"r{i}"))
        in_place = space in ("", row_space) and kind in ("", row_kind)
        if hit and found and in_place and (changed or not only_changed):
            names.append(f"r{i}")
    return names


def test_every_shape_of_the_result_filter_picks_the_rows_a_plain_reading_of_it_picks(draft, alice):
    # The query takes a different shape by filter and by how common the result is (the run
    # inside or outside an OR, a partial index), and the count may come from the summary: each
    # must select and count what the filter says, on rows whose operations disagree, next to
    # another run holding the same rows.
    def finished_run() -> ImpactRun:
        revision = workflow.latest_revision(draft)
        run = finished(
            impact_runs.start_run(alice, draft, revision, kubectl_list([deployment("x", 1)]))
        )
        _rows_of_every_combination(run)
        run.summary = impact_runs.summarize(run)
        run.save()
        return run

    run, _ = finished_run(), finished_run()
    true_summary = run.summary
    rare = {**true_summary, "total": true_summary["total"] * 100}  # every result looks rare
    old = {key: value for key, value in true_summary.items() if key != "any_operation"}
    for summary in (true_summary, rare, old, {}):
        run.summary = summary
        for result in ["", *impact_runs.FILTERS]:
            for operation in ("", "CREATE", "UPDATE"):
                for only_changed, space, kind, text in [
                    (False, "", "", ""),
                    (True, "", "", ""),
                    (False, "a", "", ""),
                    (True, "a", "Secret", ""),
                    (False, "", "", "r1"),
                ]:
                    filters = {
                        "result": result,
                        "operation": operation,
                        "only_changed": only_changed,
                        "namespace": space,
                        "kind": kind,
                        "text": text,
                    }
                    expected = _plainly(result, operation, only_changed, space, kind, text)
                    for rows_wanted in (1, 100):  # a walk for a page of one, else as it comes
                        rows = impact_runs.filter_results(run, rows_wanted=rows_wanted, **filters)
                        assert [row.name for row in rows] == expected, filters
                        assert {row.run_id for row in rows} <= {run.pk}
                    if summary is true_summary:
                        assert impact_runs.paginate_results(run, 10, **filters).count == len(
                            expected
                        ), filters


@pytest.mark.parametrize(
    ("filters", "lookups"),
    [
        ({}, ["(run_id=?)"]),
        ({"result": "deny", "operation": "CREATE"}, ["(run_id=? AND create_result=?)"]),
        ({"result": "allow", "operation": "UPDATE"}, ["(run_id=? AND update_result=?)"]),
        ({"namespace": "prod"}, ["(run_id=? AND namespace=?)"]),
        ({"kind": "Deployment"}, ["(run_id=? AND kind=?)"]),
        ({"only_changed": True}, ["(run_id=? AND changed=?)"]),
        # In any operation: each side of the OR in its own index, the two united.
        ({"result": "error"}, ["(run_id=? AND create_result=?)", "(run_id=? AND update_result=?)"]),
        # ...unless the result is common (here every row's): the run's rows walked in order.
        ({"result": "allow"}, ["(run_id=?)"]),
        # ...or another filter has an index: that one, once.
        ({"result": "error", "only_changed": True}, ["(run_id=? AND changed=?)"]),
        ({"result": "error", "namespace": "prod"}, ["(run_id=? AND namespace=?)"]),
        # Mutated rows have a partial index of their own.
        ({"result": "mutated"}, ["impact_result_mutated (run_id=?)"]),
        ({"result": "mutated", "operation": "UPDATE"}, ["impact_result_mutated (run_id=?)"]),
        # Rejected rows have none: the run's rows are walked (a page of a few among a million
        # takes 35 to 50 ms; SQLite walked even with a partial index of them), never the table's.
        ({"result": "rejected"}, ["(run_id=?)"]),
        ({"result": "rejected", "operation": "CREATE"}, ["(run_id=?)"]),
        ({"result": "deniedNewly"}, ["(run_id=?)"]),
        ({"result": "deniedNewly", "operation": "UPDATE"}, ["(run_id=?)"]),
    ],
)
def test_a_filter_of_a_runs_rows_is_looked_up_in_an_index_of_its_column(
    draft, alice, filters, lookups
):
    if connection.vendor != "sqlite":
        pytest.skip("reads SQLite's EXPLAIN QUERY PLAN")
    run = finished(
        impact_runs.start_run(
            alice, draft, workflow.latest_revision(draft), kubectl_list([deployment("a", 2)])
        )
    )
    rows = impact_runs.filter_results(run, **filters)
    page, count = plan_of(lambda: list(rows[:20])), plan_of(rows.count)
    # The count reads the filter's own index; a page may instead walk the run's rows in order
    # (SQLite's choice, to avoid a sort), but never scans the table.
    assert len(count) == len(lookups)
    for step, lookup in zip(count, lookups, strict=True):
        assert step.startswith("SEARCH review_impactresult USING") and step.endswith(lookup)
    assert all(step.startswith("SEARCH review_impactresult USING") for step in page)
    assert all("INDEX" in step for step in page)


@pytest.mark.parametrize(
    ("result", "page", "united"),
    [
        ("allow", 1, False),  # 85% of the rows: a page is a few rows' walk away
        ("deny", 1, False),  # 11%: still about a thousand rows' walk for the first page
        ("deny", 5000, True),  # but the whole run's for a page that deep: the matches sorted
        ("error", 1, True),  # 0.1%: a hundred thousand rows' walk against a thousand matches
        ("skip", 1, True),  # none: found in the indexes at once
    ],
)
def test_a_result_in_either_operation_is_found_the_way_that_reaches_the_page_sooner(
    draft, alice, result, page, united
):
    if connection.vendor != "sqlite":
        pytest.skip("reads SQLite's EXPLAIN QUERY PLAN")
    run = finished(
        impact_runs.start_run(
            alice, draft, workflow.latest_revision(draft), kubectl_list([deployment("a", 2)])
        )
    )
    either = {"allow": 850_000, "deny": 109_000, "warn": 30_000, "error": 1_000, "skip": 0}
    run.summary = {
        "total": 1_000_000,
        "CREATE": {name: 0 for name in impact.RESULTS},
        "UPDATE": {name: 0 for name in impact.RESULTS},
        "any_operation": {name: either.get(name, 0) for name in [*impact.RESULTS, "mutated"]},
    }
    rows = impact_runs.paginate_results(run, 100, page, result=result).object_list
    assert len(plan_of(rows.count)) == (2 if united else 1)


@pytest.mark.parametrize("page", ["²", "-3", "abc", "", "1e3", "9" * 20, "9" * 400])
def test_an_odd_page_number_gives_a_page_not_an_error(client, draft, alice, page):
    client.force_login(alice)
    run = finished(
        impact_runs.start_run(
            alice, draft, workflow.latest_revision(draft), kubectl_list([deployment("a", 2)])
        )
    )
    response = client.get(run.get_absolute_url(), {"result": "allow", "page": page})
    assert response.status_code == 200 and "Deployment default/a" in response.content.decode()


def plan_of(read) -> list[str]:
    """SQLite's plan steps for the rows table in the last query `read` runs.

    The query is explained as it ran, with its parameters: with the values written into the SQL
    text (as the captured queries show them), SQLite may plan it otherwise.
    """
    ran: list[tuple[str, object]] = []

    def keep(execute, sql, params, many, context):
        ran.append((sql, params))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(keep):
        read()
    sql, params = ran[-1]
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN QUERY PLAN {sql}", params)
        return [row[-1] for row in cursor.fetchall() if "review_impactresult" in row[-1]]


def test_an_outsider_cannot_start_a_run_and_a_user_has_a_limit_of_runs_at_once(
    draft, alice, eve, other_team, settings
):
    with pytest.raises(NotAllowed):
        impact_runs.start_run(eve, draft, workflow.latest_revision(draft), kubectl_list([]))
    settings.POLICYEDITOR_IMPACT_RUNS_PER_USER = 1
    revision = workflow.latest_revision(draft)
    impact_runs.start_run(alice, draft, revision, kubectl_list([deployment("a", 1)]))
    with pytest.raises(WorkflowError, match="You already have 1 impact run going"):
        impact_runs.start_run(alice, draft, revision, kubectl_list([deployment("a", 1)]))
    work()
    impact_runs.start_run(alice, draft, revision, kubectl_list([deployment("a", 1)]))


@pytest.mark.parametrize(
    ("dump", "message"),
    [
        ("- 1\n", "expected Kubernetes objects, found int"),
        (
            "apiVersion: v1\nkind: ConfigMap\nn: .inf\n",
            "unsupported value ..inf.: not a finite number",
        ),
        ("a: &x [1]\nb: *x\n", "aliases"),
        (kubectl_json([deployment("a", 1)])[:-40], "invalid JSON|truncated"),
        ("kind: List\napiVersion: v1\nitems: []\n", "The dump holds no objects."),
    ],
)
def test_a_bad_dump_fails_the_run_with_a_reason_and_the_worker_goes_on(draft, alice, dump, message):
    revision = workflow.latest_revision(draft)
    bad = impact_runs.start_run(alice, draft, revision, dump)
    good = impact_runs.start_run(alice, draft, revision, kubectl_list([deployment("a", 1)]))
    work()
    bad.refresh_from_db()
    good.refresh_from_db()
    assert bad.state == "failed"
    assert bad.error.startswith("Cannot read the dump") or bad.error == message
    assert pytest.importorskip("re").search(message, bad.error)
    assert good.state == "done"


def test_a_gzipped_upload_is_stored_once_as_given(draft, alice):
    raw = gzip.compress(kubectl_json([deployment(f"d{i}", i) for i in range(7)]))
    run = impact_runs.start_run(alice, draft, workflow.latest_revision(draft), raw)
    with run.dump.open("rb") as handle:
        assert handle.read() == raw
    run = finished(run)
    assert run.summary["CREATE"]["deny"] == 1


def run_with_a_dead_worker(draft, alice, monkeypatch) -> tuple[ImpactRun, ImpactChunk]:
    """A run of 5 objects in chunks of 2 whose second chunk a worker claimed, then died holding;
    the other chunks are done."""
    monkeypatch.setattr(impact_reader, "CHUNK", 2)
    run = impact_runs.start_run(
        alice,
        draft,
        workflow.latest_revision(draft),
        kubectl_list([deployment(f"d{i}", 1) for i in range(5)]),
    )
    impact_tasks.prepare_run.call(run.pk)  # read, without running the chunk tasks
    chunk = ImpactChunk.objects.get(run=run, index=1)
    # The chunk stays "running" with its lease.
    ImpactChunk.objects.filter(pk=chunk.pk).update(
        state="running", lease_until=timezone.now() + timedelta(minutes=5), attempts=1
    )
    run = finished(run)
    assert run.state == "running" and run.position == 3
    return run, chunk


def lease_runs_out(chunk: ImpactChunk) -> None:
    ImpactChunk.objects.filter(pk=chunk.pk).update(
        lease_until=timezone.now() - timedelta(seconds=1)
    )


def test_a_chunk_whose_worker_died_is_given_to_a_new_task_once_its_lease_runs_out(
    draft, alice, monkeypatch
):
    run, chunk = run_with_a_dead_worker(draft, alice, monkeypatch)
    assert impact_runs.requeue_stale(run) == 0  # the lease still holds
    lease_runs_out(chunk)
    assert impact_runs.requeue_stale(run) == 1
    run = finished(run)
    assert run.state == "done" and run.position == 5
    assert ImpactChunk.objects.get(pk=chunk.pk).attempts == 2


def test_a_run_nobody_watches_finishes_after_its_worker_died_once_the_lease_runs_out(
    draft, alice, monkeypatch
):
    from django_tasks_db.models import DBTaskResult

    watching = DBTaskResult.objects.filter(task_path__endswith=".watch_run", status="READY")

    def time_passes() -> None:
        # The watch task's hour comes (a lease's length after it was queued).
        assert watching.filter(run_after__gt=timezone.now()).count() == 1
        watching.update(run_after=timezone.now())

    run, chunk = run_with_a_dead_worker(draft, alice, monkeypatch)  # nobody has its page open
    time_passes()
    run = finished(run)  # the lease still holds: the watch looks again later
    assert run.state == "running"
    lease_runs_out(chunk)
    time_passes()
    run = finished(run)
    assert run.state == "done" and run.position == 5
    assert ImpactChunk.objects.get(pk=chunk.pk).attempts == 2
    time_passes()  # the watch queued while the chunk ran again finds the run done, and stops
    work()
    assert not watching.exists()


def test_a_cancelled_run_stops_and_its_queued_chunks_do_nothing(draft, alice):
    run = impact_runs.start_run(
        alice, draft, workflow.latest_revision(draft), kubectl_list([deployment("a", 1)])
    )
    impact_tasks.prepare_run.call(run.pk)
    run = impact_runs.cancel_run(alice, run)
    assert run.state == "cancelled" and run.done
    run = finished(run)
    assert run.state == "cancelled" and not ImpactResult.objects.filter(run=run).exists()


def test_objects_a_policy_loops_on_are_errors_and_the_run_finishes(
    draft, alice, settings, monkeypatch
):
    from policyeditor.core import engine_gate
    from policyeditor.editor.services import save_draft

    # Not RUNAWAY_DEADLINE: a worker that replaces a killed one compiles the policy again inside
    # its first object's deadline, and on a loaded machine 0.3 s made ordinary objects errors.
    # With 1 s the runaway may fill the worker's memory cap first: a limit's message either way.
    monkeypatch.setattr(engine_gate, "DEFAULT_TIMEOUT", 1.0)

    draft.refresh_from_db()
    save_draft(draft, bound(looping_policy(5)), expected_revision=draft.revision, author=alice)
    objects = [
        deployment("ok", 1),
        deployment("slow-1", 1),
        deployment("big", 9),
        deployment("slow-2", 1),
    ]
    run = impact_runs.start_run(
        alice, draft, workflow.latest_revision(draft), kubectl_list(objects)
    )
    run = finished(run)
    assert run.state == "done"
    results = {row.name: (row.create_result, row.update_result) for row in run.results.all()}
    assert results == {
        "ok": ("allow", "allow"),
        "slow-1": ("error", "error"),
        "big": ("deny", "deny"),
        "slow-2": ("error", "error"),
    }
    message = run.results.get(name="slow-1").create_message
    assert "exceeded the time limit" in message or "exceeded the memory limit" in message


def test_the_pages_poll_the_run_then_show_counts_a_filterable_table_and_try_it_links(
    client, draft, alice
):
    client.force_login(alice)
    dump = kubectl_list([deployment("small", 1), deployment("big", 8)])
    response = client.post(reverse("review:impact_new", args=[draft.pk, 1]), {"dump": dump})
    assert response.status_code == 302
    html = client.get(response.url).content.decode()
    assert "Queued" in html and 'hx-trigger="every 2s"' in html
    poll = client.get(response.url + "?poll=1", headers={"HX-Request": "true"})
    assert poll.status_code == 200 and "Queued" in poll.content.decode()
    work()
    done = client.get(response.url + "?poll=1", headers={"HX-Request": "true"})
    assert done.status_code == 204 and done["HX-Refresh"] == "true"
    html = client.get(response.url + "?result=deny").content.decode()
    assert "1 matching object." in html
    assert "Deployment default/big" in html and "Deployment default/small" not in html
    assert 'class="pill result-deny"' in html
    run = ImpactRun.objects.get()
    try_it = client.get(reverse("review:impact_try", args=[draft.pk, run.pk, 1]))
    assert try_it.status_code == 302
    editor = client.get(try_it.url).content.decode()
    assert "name: big" in editor
    report = b"".join(
        client.get(reverse("review:impact_report", args=[draft.pk, run.pk])).streaming_content
    )
    assert report.count(b"\n") == 3 and b'"state": "done"' in report


def test_a_refused_run_gives_the_form_back_with_what_was_pasted_and_ticked(
    client, draft, alice, settings
):
    client.force_login(alice)
    settings.POLICYEDITOR_IMPACT_RUNS_PER_USER = 1
    url = reverse("review:impact_new", args=[draft.pk, 1])
    assert "impact run going" not in client.get(url).content.decode()
    dump = kubectl_list([deployment("kept-by-the-form", 1)])
    first = client.post(url, {"dump": kubectl_list([deployment("a", 1)])})
    assert first.status_code == 302
    refused = client.post(
        url, {"dump": dump, "namespaces": kubectl_list([namespace("prod")]), "no_defaulting": "on"}
    )
    html = refused.content.decode()
    assert refused.status_code == 200 and "You already have 1 impact run going" in html
    assert "kept-by-the-form" in html and "name: prod" in html
    assert 'name="no_defaulting" id="id_no_defaulting" checked' in html
    assert ImpactRun.objects.filter(created_by=alice).count() == 1
    # The form says so before a dump is chosen too.
    assert "You already have 1 impact run going" in client.get(url).content.decode()
    empty = client.post(url, {"dump": "", "no_defaulting": "on"}).content.decode()
    assert "Paste or upload a dump of objects." in empty and "checked" in empty


def test_a_refused_upload_asks_for_the_file_again(client, draft, alice, settings):
    from django.core.files.uploadedfile import SimpleUploadedFile

    client.force_login(alice)
    settings.POLICYEDITOR_IMPACT_RUNS_PER_USER = 1
    ImpactRun.objects.create(
        draft=draft, revision=workflow.latest_revision(draft), created_by=alice
    )
    upload = SimpleUploadedFile("dump.json", kubectl_json([deployment("a", 1)]))
    html = client.post(
        reverse("review:impact_new", args=[draft.pk, 1]), {"dump_file": upload}
    ).content.decode()
    assert "You already have 1 impact run going" in html and "Choose the file again" in html


def test_an_upload_past_the_old_3_mib_cap_is_accepted_and_one_past_the_limit_refused(
    client, draft, alice
):
    client.force_login(alice)
    big = kubectl_json([deployment(f"d{i}", i % 7) for i in range(12_000)])
    assert len(big) > 4 * 1024 * 1024
    from django.core.files.uploadedfile import SimpleUploadedFile

    upload = SimpleUploadedFile("dump.json", big, content_type="application/json")
    response = client.post(reverse("review:impact_new", args=[draft.pk, 1]), {"dump_file": upload})
    assert response.status_code == 302
    too_big = client.post(
        reverse("review:impact_new", args=[draft.pk, 1]),
        {"dump": "x"},
        CONTENT_LENGTH=str(3 * 2**30),
    )
    assert too_big.status_code == 413


def test_deleting_a_run_removes_its_dump_and_chunk_files(draft, alice):
    run = impact_runs.start_run(
        alice, draft, workflow.latest_revision(draft), kubectl_list([deployment("a", 1)])
    )
    run = finished(run)
    dump_path, chunks = Path(run.dump.path), impact_tasks.chunk_dir(run.pk)
    assert chunks.exists() and dump_path.exists()
    run.delete()
    assert not chunks.exists() and not dump_path.exists()


def test_a_run_whose_reader_died_is_read_again_once_its_lease_runs_out(draft, alice):
    run = impact_runs.start_run(
        alice, draft, workflow.latest_revision(draft), kubectl_list([deployment("a", 1)])
    )
    # A worker took the run and died while reading the dump.
    soon = timezone.now() + timedelta(minutes=5)
    ImpactRun.objects.filter(pk=run.pk).update(state="reading", read_lease=soon)
    run = finished(run)  # the queued prepare task finds the run taken and does nothing
    assert run.state == "reading"
    assert impact_runs.requeue_stale(run) == 0
    ImpactRun.objects.filter(pk=run.pk).update(read_lease=timezone.now() - timedelta(seconds=1))
    assert impact_runs.requeue_stale(run) == 1
    run = finished(run)
    assert run.state == "done" and run.position == 1


def test_the_pages_of_the_table_keep_the_filters(client, draft, alice):
    client.force_login(alice)
    dump = kubectl_list([deployment(f"web-{i}", 8) for i in range(101)])
    response = client.post(reverse("review:impact_new", args=[draft.pk, 1]), {"dump": dump})
    work()
    query = {"result": "deny", "q": "Deployment default/web", "page": 2}
    html = client.get(response.url, query).content.decode()
    assert "Page 2 of 2" in html
    previous = "?result=deny&amp;operation=&amp;q=Deployment%20default/web&amp;page=1"
    assert f'href="{previous}">← Previous</a>' in html


def test_custom_resources_of_the_dump_are_checked_against_the_teams_crds(alice, team):
    from policyeditor.editor.services import create_draft
    from policyeditor.review.models import DraftWorkflow
    from policyeditor.schemalib import services as library
    from tests.crd_cases import BY_ID

    case = BY_ID["certificate"]
    library.import_crds(team, alice, case.path.read_text())
    draft = create_draft(alice, bound(case.vap(case.valid)))
    DraftWorkflow.objects.create(draft=draft, team=team)
    broken = case.object("broken")
    broken["spec"]["dnsNames"] = "web.example.com"
    dump = kubectl_list([case.object("good"), case.denied_object(), broken])
    run = finished(impact_runs.start_run(alice, draft, workflow.latest_revision(draft), dump))
    outcomes = {r.name: r for r in run.results.all()}
    assert outcomes["sample"].create_result == "deny"
    assert outcomes["good"].create_result == "allow"
    assert outcomes["broken"].create_result == "error"
    assert outcomes["broken"].create_message.startswith(
        'Certificate.cert-manager.io "broken" is invalid'
    )


def test_a_viewer_cannot_start_a_run_and_only_its_creator_or_a_deleter_cancels_it(
    draft, alice, bob, carol, dave
):
    revision = workflow.latest_revision(draft)
    with pytest.raises(NotAllowed, match="Only authors"):
        impact_runs.start_run(carol, draft, revision, kubectl_list([deployment("a", 1)]))
    assert not ImpactRun.objects.exists()
    mine = impact_runs.start_run(alice, draft, revision, kubectl_list([deployment("a", 1)]))
    bobs = impact_runs.start_run(bob, draft, revision, kubectl_list([deployment("b", 1)]))
    for someone in (carol, bob):
        with pytest.raises(NotAllowed, match="can cancel it"):
            impact_runs.cancel_run(someone, mine)
    mine.refresh_from_db()
    assert mine.state == "queued"
    assert impact_runs.cancel_run(alice, mine).state == "cancelled"
    assert impact_runs.cancel_run(dave, bobs).state == "cancelled"


def test_a_cancel_is_recorded_in_the_audit_log_once(draft, alice, dave):
    from policyeditor.review.models import Action, AuditEvent

    run = impact_runs.start_run(
        alice, draft, workflow.latest_revision(draft), kubectl_list([deployment("a", 1)])
    )
    impact_runs.cancel_run(dave, run)
    impact_runs.cancel_run(alice, run)  # already stopped: nothing more to record
    (event,) = AuditEvent.objects.filter(action=Action.IMPACT_CANCELLED)
    assert event.actor == dave and event.draft == draft and event.detail["run"] == run.pk
    assert event.revision_number == 1


def test_the_pages_show_a_viewer_the_runs_without_the_start_form_or_the_cancel_button(
    client, draft, alice, carol
):
    run = impact_runs.start_run(
        alice, draft, workflow.latest_revision(draft), kubectl_list([deployment("a", 1)])
    )
    new = reverse("review:impact_new", args=[draft.pk, 1])
    client.force_login(carol)
    html = client.get(new).content.decode()
    assert 'name="dump"' not in html and 'data-testid="impact-start-refused"' in html
    assert run.get_absolute_url() in html  # the earlier runs are still listed
    forged = client.post(new, {"dump": kubectl_list([deployment("b", 1)])})
    assert forged.status_code == 403 and "Only authors" in forged.content.decode()
    assert ImpactRun.objects.count() == 1
    page = client.get(run.get_absolute_url()).content.decode()
    assert "Cancel run" not in page and 'data-testid="impact-cancel-refused"' in page
    poll = client.get(run.get_absolute_url() + "?poll=1", headers={"HX-Request": "true"})
    assert "Cancel run" not in poll.content.decode()
    cancel = reverse("review:impact_cancel", args=[draft.pk, run.pk])
    assert client.post(cancel).status_code == 403
    run.refresh_from_db()
    assert run.state == "queued"
    client.force_login(alice)
    assert "Cancel run" in client.get(run.get_absolute_url()).content.decode()
    assert 'name="dump"' in client.get(new).content.decode()
    assert client.post(cancel).status_code == 302
    run.refresh_from_db()
    assert run.state == "cancelled"


@pytest.mark.parametrize(
    ("state", "total", "position", "percent"),
    [
        ("queued", 0, 0, 0),
        ("reading", 0, 0, 0),
        ("running", 200, 50, 25),
        ("running", 200, 200, 99),  # every row stored, the run not yet marked done
        ("cancelled", 200, 100, 50),
        ("failed", 0, 0, 0),
        ("done", 200, 200, 100),
    ],
)
def test_a_run_is_at_100_percent_only_once_done(state, total, position, percent):
    assert ImpactRun(state=state, total=total, position=position).percent == percent


def test_a_queued_run_is_at_0_percent_in_the_api_and_on_the_pages(client, draft, alice):
    from policyeditor.review.impact_report import run_dict

    run = impact_runs.start_run(
        alice, draft, workflow.latest_revision(draft), kubectl_list([deployment("a", 1)])
    )
    assert run_dict(run)["percent"] == 0
    client.force_login(alice)
    html = client.get(reverse("review:impact_new", args=[draft.pk, 1])).content.decode()
    assert "· 0%" in html and "100%" not in html


def test_the_run_page_says_whether_the_objects_were_defaulted(client, draft, alice):
    client.force_login(alice)
    url = reverse("review:impact_new", args=[draft.pk, 1])
    dump = kubectl_list([deployment("a", 1)])
    skipped = client.post(url, {"dump": dump, "no_defaulting": "on"})
    defaulted = client.post(url, {"dump": dump})
    html = client.get(skipped.url).content.decode()
    assert "defaulting skipped: objects evaluated as given" in html
    assert "objects defaulted as the API server does" in client.get(defaulted.url).content.decode()
    assert client.get(url).content.decode().count("· defaulting skipped") == 1


@pytest.mark.parametrize(
    ("namespaces", "message"),
    [
        ("- 1\n", "expected Kubernetes objects, found int"),
        ("a: &x [1]\nb: *x\n", "aliases"),
        ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n", "holds no Namespace objects"),
    ],
)
def test_a_bad_namespaces_file_fails_the_run_naming_that_file_not_the_dump(
    draft, alice, namespaces, message
):
    run = impact_runs.start_run(
        alice,
        draft,
        workflow.latest_revision(draft),
        kubectl_list([deployment("a", 1)]),
        namespaces,
    )
    run = finished(run)
    assert run.state == "failed"
    assert run.error.startswith("Cannot read the namespaces file: ") and message in run.error


@pytest.mark.parametrize("enforce_csrf", [False, True])
def test_a_paste_over_3_mib_gives_the_form_back_saying_the_limit_and_to_upload_a_file(
    draft, alice, enforce_csrf
):
    from django.test import Client

    # With CSRF checks on (as in a browser) the middleware would read the body before the view.
    client = Client(enforce_csrf_checks=enforce_csrf)
    client.force_login(alice)
    url = reverse("review:impact_new", args=[draft.pk, 1])
    form = client.get(url)
    assert "Paste up to 3 MiB (both boxes together)" in form.content.decode()
    token = form.cookies["csrftoken"].value if enforce_csrf else "unused"
    pasted = kubectl_list([deployment("a", 1)]) + "# padding\n" * (2**20 // 3)
    response = client.post(url, {"dump": pasted, "csrfmiddlewaretoken": token})
    html = response.content.decode()
    assert response.status_code == 413, html[:500]
    assert "The pasted text is too large. Paste up to 3 MiB" in html
    assert "upload a larger dump as a file instead (up to 1 GiB)" in html
    assert 'name="dump_file"' in html and not ImpactRun.objects.exists()
    # A hop-by-hop header would make `make run`'s development server answer 500 instead.
    assert not response.has_header("Connection")


def test_an_upload_the_browser_stopped_sending_is_a_400_and_stores_nothing(draft, alice, client):
    from django.http import UnreadablePostError
    from django.http.multipartparser import MultiPartParser

    client.force_login(alice)

    def interrupted(*args, **kwargs):
        raise UnreadablePostError("connection reset")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(MultiPartParser, "parse", interrupted)
        response = client.post(
            reverse("review:impact_new", args=[draft.pk, 1]),
            {"dump": kubectl_list([deployment("a", 1)])},
        )
    assert response.status_code == 400 and not ImpactRun.objects.exists()


def test_a_forged_post_still_needs_the_csrf_token(draft, alice):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    client.get(reverse("review:impact_new", args=[draft.pk, 1]))
    forged = client.post(
        reverse("review:impact_new", args=[draft.pk, 1]),
        {"dump": kubectl_list([deployment("a", 1)])},
    )
    assert forged.status_code == 403 and not ImpactRun.objects.exists()


def test_a_dump_both_pasted_and_uploaded_is_refused_keeping_what_was_pasted_and_ticked(
    client, draft, alice
):
    from django.core.files.uploadedfile import SimpleUploadedFile

    client.force_login(alice)
    upload = SimpleUploadedFile("dump.json", kubectl_json([deployment("uploaded", 1)]))
    namespaces = SimpleUploadedFile("ns.json", kubectl_json([namespace("prod")]))
    response = client.post(
        reverse("review:impact_new", args=[draft.pk, 1]),
        {
            "dump": kubectl_list([deployment("pasted", 1)]),
            "dump_file": upload,
            "namespaces": kubectl_list([namespace("dev")]),
            "namespaces_file": namespaces,
            "no_defaulting": "on",
        },
    )
    html = response.content.decode()
    assert response.status_code == 200 and not ImpactRun.objects.exists()
    assert "Paste the objects or upload them as a file, not both" in html
    assert "Paste the namespaces or upload them as a file, not both" in html
    assert "name: pasted" in html and "name: dev" in html and "Choose the files again" in html
    assert 'name="no_defaulting" id="id_no_defaulting" checked' in html


def test_a_cancelled_run_shows_the_rows_it_stored_marked_as_partial_with_its_report(
    client, draft, alice, monkeypatch
):
    monkeypatch.setattr(impact_reader, "CHUNK", 2)
    run = impact_runs.start_run(
        alice,
        draft,
        workflow.latest_revision(draft),
        kubectl_list([deployment(f"d{i}", 9) for i in range(6)]),
    )
    impact_tasks.prepare_run.call(run.pk)
    impact_tasks.run_chunk.call(ImpactChunk.objects.get(run=run, index=0).pk)
    run = finished(impact_runs.cancel_run(alice, run))
    assert (run.state, run.position, run.total) == ("cancelled", 2, 6)
    client.force_login(alice)
    html = client.get(run.get_absolute_url()).content.decode()
    assert "This run was cancelled after 2 of 6 objects" in html and "partial" in html
    assert "Deployment default/d0" in html and "Deployment default/d1" in html
    assert "Deployment default/d2" not in html and "2 matching objects." in html
    report = reverse("review:impact_report", args=[draft.pk, run.pk])
    assert report in html and "Download the partial report" in html
    lines = b"".join(client.get(report).streaming_content).splitlines()
    assert len(lines) == 3 and b'"state": "cancelled"' in lines[0]


def test_a_run_cancelled_before_any_object_says_so_without_a_table(client, draft, alice):
    run = impact_runs.start_run(
        alice, draft, workflow.latest_revision(draft), kubectl_list([deployment("a", 1)])
    )
    impact_runs.cancel_run(alice, run)
    client.force_login(alice)
    html = client.get(run.get_absolute_url()).content.decode()
    assert "cancelled before any object was evaluated" in html
    assert 'data-testid="impact-table"' not in html
