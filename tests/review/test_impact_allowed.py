"""The API server's answer in an impact run's rows: an error it rejects reads otherwise than one it
admits, before and after, on the page, in the report and in the counts."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from policyeditor.editor.services import save_draft
from policyeditor.engine import impact
from policyeditor.review import impact_runs, workflow
from policyeditor.review.impact_queries import ANSWERS
from policyeditor.review.impact_report import result_dict, side
from policyeditor.review.impact_store import insert_results
from policyeditor.review.models import ImpactRun
from tests.builders import bound
from tests.engine.impact.helpers import deployment, kubectl_json, labelled, labels_policy
from tests.review.impact_worker import work

pytestmark = pytest.mark.django_db

# An error under both revisions, allowed by both, denied by both.
DUMP = [deployment("unlabelled", 1), labelled("web", "web"), labelled("db", "db")]


@pytest.fixture(autouse=True)
def impact_dir(settings, tmp_path):
    settings.POLICYEDITOR_IMPACT_DIR = str(tmp_path / "impact")


def save(draft, user, *documents: dict) -> None:
    draft.refresh_from_db()
    save_draft(draft, list(documents), expected_revision=draft.revision, author=user)


def run_of(draft, alice, bob, before: str | None, after: str) -> ImpactRun:
    """A finished run of DUMP under labels_policy(after), compared with labels_policy(before)
    approved (None: no approved revision)."""
    if before is not None:
        save(draft, alice, *bound(labels_policy(before)))
        workflow.request_review(alice, draft)
        workflow.approve(bob, draft, revision_number=2)
    save(draft, alice, *bound(labels_policy(after)))
    revision = workflow.latest_revision(draft)
    run = impact_runs.start_run(alice, draft, revision, kubectl_json(DUMP))
    work()
    run.refresh_from_db()
    assert run.state == "done" and (run.baseline is not None) == (before is not None)
    return run


@pytest.fixture
def ignore_then_fail(draft, alice, bob) -> ImpactRun:
    """The approved r2 admits the unlabelled object's error (Ignore); r3 rejects it (Fail)."""
    return run_of(draft, alice, bob, "Ignore", "Fail")


def row_html(html: str, name: str) -> str:
    """The table row of one object."""
    start = html.index(f"Deployment default/{name} ")
    return html[start : html.index("</tr>", start)]


def test_an_error_the_baseline_admitted_reads_rejected_now_and_was_admitted_on_the_page(
    client, alice, ignore_then_fail
):
    client.force_login(alice)
    html = client.get(ignore_then_fail.get_absolute_url()).content.decode()
    unlabelled = row_html(html, "unlabelled")
    assert unlabelled.count(">error (rejected)</span>") == 2  # CREATE and UPDATE
    assert unlabelled.count("was error (admitted)") == 2
    assert 'class="pill result-error rejected" title="allowed: false.' in unlabelled
    # Results the API server's answer does not change read as they did.
    assert "was" not in row_html(html, "db") and ">deny</span>" in row_html(html, "db")
    assert ">allow</span>" in row_html(html, "web")
    assert html.count('data-testid="impact-error-answers">(1 rejected, 0 admitted)') == 2
    assert "1 object newly denied: a request approved r2 admitted is rejected by r3." in html


@pytest.mark.parametrize(
    ("query", "names"),
    [
        ({"result": "deniedNewly"}, ["unlabelled"]),
        ({"result": "deniedNewly", "operation": "UPDATE"}, ["unlabelled"]),
        ({"result": "rejected"}, ["unlabelled", "db"]),
        ({"result": "rejected", "changed": "1"}, ["unlabelled"]),
        ({"result": "error"}, ["unlabelled"]),
        ({"changed": "1"}, ["unlabelled"]),
    ],
)
def test_the_page_filters_rejected_and_newly_denied_rows(
    client, alice, ignore_then_fail, query, names
):
    client.force_login(alice)
    html = client.get(ignore_then_fail.get_absolute_url(), query).content.decode()
    shown = [name for name in ("unlabelled", "web", "db") if f"Deployment default/{name} " in html]
    assert shown == names
    assert f"{len(names)} matching object{'s' if len(names) > 1 else ''}." in html


def test_the_report_gives_each_operations_answer_before_and_after(client, alice, ignore_then_fail):
    client.force_login(alice)
    url = reverse("review:impact_report", args=[ignore_then_fail.draft_id, ignore_then_fail.pk])
    header, *lines = b"".join(client.get(url).streaming_content).decode().splitlines()
    rows = {row["name"]: row for row in map(json.loads, lines)}
    assert rows["unlabelled"]["CREATE"] | {"message": ""} == {
        "result": "error",
        "allowed": False,
        "before": "error",
        "allowedBefore": True,
        "mutated": False,
        "message": "",
    }
    assert rows["unlabelled"]["changed"] and rows["unlabelled"]["deniedNewly"]
    assert rows["db"]["UPDATE"]["allowed"] is rows["db"]["UPDATE"]["allowedBefore"] is False
    assert not rows["db"]["deniedNewly"] and not rows["web"]["deniedNewly"]
    summary = json.loads(header)["summary"]
    assert summary["deniedNewly"] == summary["any_operation"]["deniedNewly"] == 1
    answers = {"rejected": 2, "deniedNewly": 1, "errorRejected": 1, "errorAdmitted": 0}
    assert summary["CREATE"].items() >= answers.items()
    assert summary["any_operation"]["rejected"] == 2


@pytest.mark.parametrize(
    ("before", "after"), [("Ignore", "Fail"), ("Fail", "Ignore"), (None, "Fail")]
)
def test_newly_denied_rows_and_counts_are_the_ones_the_cli_counts(draft, alice, bob, before, after):
    run = run_of(draft, alice, bob, before, after)
    job = impact.Job(
        bound(labels_policy(after)),
        run.revision.kubernetes_version,
        bound(labels_policy(before)) if before else None,
    )
    cli = impact.Summary()
    expected = set()
    for row in impact.evaluate_stream(job, DUMP, pool=None):
        cli.add(row)
        if impact.denied_newly(row):
            expected.add(row["name"])
    assert run.summary["deniedNewly"] == cli.to_dict()["deniedNewly"] == len(expected)
    assert {row.name for row in impact_runs.filter_results(run, result="deniedNewly")} == expected
    assert {row.name for row in run.results.all() if result_dict(row)["deniedNewly"]} == expected
    for operation in impact.OPERATIONS:
        rejected = run.results.filter(**{f"{operation.lower()}_allowed": False}).count()
        assert run.summary[operation]["rejected"] == rejected
        assert run.summary[operation]["error"] == cli.to_dict()[operation]["error"]


def test_rows_stored_before_the_answers_were_claim_none_for_an_error(client, alice, draft):
    # As migration 0014 leaves them: an error's answer NULL, the others' from their result; the
    # run's summary from before, without the answers' counts.
    revision = workflow.latest_revision(draft)
    run = impact_runs.start_run(alice, draft, revision, kubectl_json([deployment("x", 1)]))
    work()
    run.refresh_from_db()
    run.results.all().delete()
    insert_results(
        [
            (run.pk, 0, "apps/v1", "Deployment", "default", "old-error", "error", "deny")
            + ("", "", None, False, None, None, False, False, 0, False, "boom", "too many"),
        ]
    )
    summary = impact_runs.summarize(run)
    del summary["deniedNewly"]
    for counts in (summary["CREATE"], summary["UPDATE"], summary["any_operation"]):
        for key in ANSWERS:
            counts.pop(key, None)
    ImpactRun.objects.filter(pk=run.pk).update(summary=summary)
    run.refresh_from_db()
    row = run.results.get()
    assert side(row, "CREATE").label == "error" and not side(row, "CREATE").denied_newly
    assert result_dict(row)["CREATE"]["allowed"] is None
    assert result_dict(row)["deniedNewly"]  # its UPDATE was a deny: rejected, whatever the policy
    client.force_login(alice)
    html = client.get(run.get_absolute_url()).content.decode()
    cell = row_html(html, "old-error")
    assert 'title="Not recorded: the run stored this row before' in cell and ">error</span>" in cell
    assert 'title="Not recorded: the run was counted before' in html
    assert 'data-testid="impact-denied-newly"' not in html and "impact-error-answers" not in html
    # The filters count in SQL what the summary does not hold.
    assert impact_runs.paginate_results(run, 10, result="rejected").count == 1
    assert impact_runs.paginate_results(run, 10, result="rejected", operation="CREATE").count == 0
