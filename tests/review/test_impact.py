"""Tests for impact analysis: dump loading, per-object outcomes, counts, changes, progress."""

from __future__ import annotations

import json
import time

import pytest
from django.urls import reverse

from policyeditor.engine.manifests.loading import dump_documents
from policyeditor.review import impact, impact_runs, workflow
from policyeditor.review.impact import DumpError
from tests.builders import replica_limit as policy
from tests.review.conftest import edit

CONFIG_MAP = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: n}\n"

pytestmark = pytest.mark.django_db


def deployment(name: str, replicas: int, namespace: str = "default") -> dict:
    """A Deployment as kubectl dumps it (with managedFields)."""
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "managedFields": [{"manager": "kubectl", "operation": "Apply"}],
        },
        "spec": {"replicas": replicas},
    }


def namespace(name: str, **labels: str) -> dict:
    """A Namespace object."""
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": labels}}


def kubectl_list(items: list[dict]) -> str:
    """What `kubectl get ... -o yaml` prints."""
    return dump_documents([{"apiVersion": "v1", "kind": "List", "items": items}])


def test_a_kubectl_list_json_and_multi_document_yaml_all_load_without_managed_fields():
    items = [deployment("a", 1), deployment("b", 2)]
    for text in (
        kubectl_list(items),
        json.dumps({"kind": "List", "apiVersion": "v1", "items": items}),
        dump_documents(items),
    ):
        objects = impact.load_dump(text)
        assert [o["metadata"]["name"] for o in objects] == ["a", "b"]
        assert "managedFields" not in objects[0]["metadata"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a: &x [1]\nb: *x\n", "aliases"),
        ("- 1\n- 2\n", "expected Kubernetes objects"),
        ("metadata: {name: x}\n", "apiVersion and kind"),
        ("a: [unclosed\n", "invalid YAML"),
        (b"\xff\xfe\x00", "not UTF-8"),
        (CONFIG_MAP + "n: .inf\n", r"at objects\[0\]\.n: unsupported value inf"),
        (CONFIG_MAP + "n: .nan\n", r"at objects\[0\]\.n: unsupported value nan"),
        ('{"apiVersion": "v1", "kind": "ConfigMap", "n": 1e400}', r"objects\[0\]\.n: unsupported"),
        ('{"apiVersion": "v1", "kind": "ConfigMap", "n": "\\ud800"}', "unpaired UTF-16 surrogate"),
        (CONFIG_MAP + "b: !!binary aGk=\n", r"at objects\[0\]\.b: a bytes value has no JSON form"),
    ],
)
def test_bad_dumps_are_refused_with_a_reason(text, message):
    with pytest.raises(DumpError, match=message):
        impact.load_dump(text)


def test_each_object_gets_create_and_update_outcomes_and_counts():
    documents = [policy(5)]
    objects = [deployment("small", 2), deployment("big", 9), namespace("default")]
    rows = impact.evaluate_chunk(documents, None, objects, {}, version="1.34")
    by_name = {row["name"]: row for row in rows}
    assert by_name["small"]["CREATE"]["result"] == "allow"
    assert by_name["big"]["CREATE"]["result"] == "deny"
    assert by_name["big"]["UPDATE"]["result"] == "deny"
    assert "must be at most 5" in by_name["big"]["CREATE"]["message"]
    assert by_name["default"]["CREATE"]["result"] == "skip"  # namespaces do not match the rules
    summary = impact.summarize(rows)
    assert summary["CREATE"] == {
        "allow": 1,
        "deny": 1,
        "warn": 0,
        "audit": 0,
        "skip": 1,
        "error": 0,
        "mutated": 0,
    }
    assert summary["total"] == 3


def test_rows_are_filtered_by_result_operation_change_and_name():
    rows = impact.evaluate_chunk(
        [policy(3)],
        [policy(5)],
        [deployment("a", 2), deployment("b", 4), deployment("c", 9)],
        {},
        version="1.34",
    )
    assert [r["name"] for r in impact.filter_rows(rows, result="deny")] == ["b", "c"]
    assert [r["name"] for r in impact.filter_rows(rows, only_changed=True)] == ["b"]
    assert [r["name"] for r in impact.filter_rows(rows, result="allow", operation="UPDATE")] == [
        "a"
    ]
    assert [r["name"] for r in impact.filter_rows(rows, text="deployment default/c")] == ["c"]
    assert impact.summarize(rows)["changed"] == 1


def test_a_run_compares_with_the_approved_revision_and_advances_in_chunks(draft, alice, bob):
    workflow.request_review(alice, draft)
    workflow.approve(bob, draft, revision_number=1)
    edit(draft, alice, 3)
    dump = kubectl_list([deployment(f"d{i}", i % 7) for i in range(25)])
    run = impact_runs.start_run(alice, draft, workflow.latest_revision(draft), dump)
    assert run.baseline.number == 1 and run.total == 25 and not run.done
    run = impact_runs.step(run, chunk=10)
    assert run.position == 10 and run.percent == 40 and not run.done
    run = impact_runs.run_to_end(run)
    assert run.done and run.pending == []
    # replicas 4 and 5 were allowed by the limit of 5 and are denied by the limit of 3
    changed = [r for r in run.rows if impact.changed(r)]
    assert {r["name"] for r in changed} == {f"d{i}" for i in range(25) if i % 7 in (4, 5)}


def test_namespace_selectors_see_the_namespaces_of_the_dump(draft, alice):
    selective = policy(5)
    selective["spec"]["matchConstraints"]["namespaceSelector"] = {"matchLabels": {"env": "prod"}}
    edit_docs = [selective]
    from policyeditor.editor.services import save_draft

    draft.refresh_from_db()
    save_draft(draft, edit_docs, expected_revision=draft.revision, author=alice)
    dump = kubectl_list([deployment("p", 9, "prod"), deployment("d", 9, "dev")])
    namespaces = kubectl_list([namespace("prod", env="prod"), namespace("dev", env="dev")])
    run = impact_runs.run_to_end(
        impact_runs.start_run(alice, draft, workflow.latest_revision(draft), dump, namespaces)
    )
    results = {row["name"]: row["CREATE"]["result"] for row in run.rows}
    assert results == {"p": "deny", "d": "skip"}


def test_an_outsider_cannot_start_a_run(draft, eve, other_team):
    from policyeditor.review.workflow import NotAllowed

    with pytest.raises(NotAllowed):
        impact_runs.start_run(eve, draft, workflow.latest_revision(draft), kubectl_list([]))


def test_ten_thousand_objects_finish_in_seconds():
    documents = [policy(5)]
    objects = [deployment(f"d{i}", i % 10) for i in range(10_000)]
    text = kubectl_list(objects)
    started = time.perf_counter()
    loaded = impact.load_dump(text)
    rows = impact.evaluate_chunk(documents, None, loaded, {}, version="1.34")
    elapsed = time.perf_counter() - started
    assert impact.summarize(rows)["CREATE"]["deny"] == 4_000
    assert elapsed < 20, f"took {elapsed:.1f}s"


def test_the_pages_show_progress_then_counts_and_a_filterable_table(client, draft, alice):
    client.force_login(alice)
    dump = kubectl_list([deployment("small", 1), deployment("big", 8)])
    response = client.post(reverse("review:impact_new", args=[draft.pk, 1]), {"dump": dump})
    assert response.status_code == 302
    html = client.get(response.url).content.decode()
    assert "Evaluating: 0 of 2 objects" in html and "hx-post" in html
    step_url = response.url + "step/"
    done = client.post(step_url, headers={"HX-Request": "true"})
    assert done.status_code == 204 and done["HX-Refresh"] == "true"
    html = client.get(response.url + "?result=deny").content.decode()
    assert "1 matching object." in html
    assert "Deployment default/big" in html and "Deployment default/small" not in html


def test_the_pages_of_the_table_keep_the_filters(client, draft, alice):
    client.force_login(alice)
    dump = kubectl_list([deployment(f"web-{i}", 8) for i in range(101)])
    response = client.post(reverse("review:impact_new", args=[draft.pk, 1]), {"dump": dump})
    for _ in range(50):
        if client.post(response.url + "step/", headers={"HX-Request": "true"}).status_code == 204:
            break
    query = {"result": "deny", "q": "Deployment default/web", "page": 2}
    html = client.get(response.url, query).content.decode()
    assert "Page 2 of 2" in html
    previous = "?result=deny&amp;operation=&amp;q=Deployment%20default/web&amp;page=1"
    assert f'href="{previous}">← Previous</a>' in html


@pytest.mark.parametrize("dump", ["- 1\n", CONFIG_MAP + "n: .inf\n"])
def test_a_bad_dump_on_the_page_says_why(client, draft, alice, dump):
    client.force_login(alice)
    response = client.post(reverse("review:impact_new", args=[draft.pk, 1]), {"dump": dump})
    assert response.status_code == 200
    assert "Cannot read the dump" in response.content.decode()


def test_an_identical_baseline_reports_no_changes():
    rows = impact.evaluate_chunk([policy(5)], [policy(5)], [deployment("a", 9)], {}, version="1.34")
    assert rows[0]["CREATE_before"] == rows[0]["CREATE"]
    assert not impact.changed(rows[0])


def test_unquoted_timestamps_in_a_dump_stay_strings_as_kubernetes_reads_them():
    dump = CONFIG_MAP.replace("{name: n}", "{name: n, creationTimestamp: 2024-05-01T10:00:00Z}")
    objects = impact.load_dump(dump + "day: 2024-05-01\n")
    assert objects[0]["metadata"]["creationTimestamp"] == "2024-05-01T10:00:00Z"
    assert objects[0]["day"] == "2024-05-01"


def test_hand_written_objects_are_defaulted_unless_the_run_says_not_to(draft, alice):
    unset = deployment("unset", 1)
    del unset["spec"]["replicas"]
    rows = impact.evaluate_chunk([policy(5)], None, [unset], {}, version="1.34")
    assert rows[0]["CREATE"] == {"result": "allow", "message": "", "mutated": False}
    rows = impact.evaluate_chunk([policy(5)], None, [unset], {}, version="1.34", defaulting=False)
    assert rows[0]["CREATE"]["result"] == "error"  # the expression fails: failurePolicy Fail
    assert "no such key: replicas" in rows[0]["CREATE"]["message"]
    revision = workflow.latest_revision(draft)
    run = impact_runs.start_run(alice, draft, revision, kubectl_list([unset]), defaulting=False)
    run = impact_runs.run_to_end(run)
    assert run.defaulting is False
    assert run.rows[0]["CREATE"]["result"] == "error"


def test_the_upload_form_offers_to_skip_defaulting(client, draft, alice):
    client.force_login(alice)
    revision = workflow.latest_revision(draft)
    page = client.get(reverse("review:impact_new", args=[draft.pk, revision.number]))
    assert 'name="no_defaulting"' in page.content.decode()


def test_custom_resources_of_the_dump_are_checked_against_the_teams_crds(alice, team):
    from policyeditor.editor.services import create_draft
    from policyeditor.review.models import DraftWorkflow
    from policyeditor.schemalib import services as library
    from tests.crd_cases import BY_ID

    case = BY_ID["certificate"]
    library.import_crds(team, alice, case.path.read_text())
    draft = create_draft(alice, [case.vap(case.valid)])
    DraftWorkflow.objects.create(draft=draft, team=team)
    broken = case.object("broken")
    broken["spec"]["dnsNames"] = "web.example.com"
    dump = kubectl_list([case.object("good"), case.denied_object(), broken])
    run = impact_runs.run_to_end(
        impact_runs.start_run(alice, draft, workflow.latest_revision(draft), dump)
    )
    outcomes = {r["name"]: r["CREATE"] for r in run.rows}
    assert outcomes["sample"]["result"] == "deny"
    assert outcomes["good"]["result"] == "allow"
    assert outcomes["broken"]["result"] == "error"
    assert outcomes["broken"]["message"].startswith(
        'Certificate.cert-manager.io "broken" is invalid'
    )
