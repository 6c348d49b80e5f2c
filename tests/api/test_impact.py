"""Impact runs over the API: start with a multipart dump, poll, filter rows, stream the report."""

from __future__ import annotations

import gzip
import json

import pytest

from tests.builders import bound
from tests.engine.impact.helpers import deployment, kubectl_json
from tests.review.impact_worker import work

pytestmark = pytest.mark.django_db


@pytest.fixture
def draft(alice):
    """alice's draft of the example policy and a binding of it: impact ignores unbound ones."""
    from policyeditor.api.examples import POLICY
    from policyeditor.editor.services import create_draft

    return create_draft(alice, bound(POLICY), name="replica-limit")


@pytest.fixture(autouse=True)
def impact_dir(settings, tmp_path):
    settings.POLICYEDITOR_IMPACT_DIR = str(tmp_path / "impact")


def start(api, draft, data: bytes, **params):
    query = "&".join(f"{k}={v}" for k, v in params.items())
    return api.client.post(
        f"/api/v1/drafts/{draft.pk}/impact-runs" + (f"?{query}" if query else ""),
        {"dump": _file(data)},
        **api._headers(None),
    )


def _file(data: bytes):
    from django.core.files.uploadedfile import SimpleUploadedFile

    return SimpleUploadedFile("dump.json.gz", data, content_type="application/gzip")


def test_a_run_is_started_polled_filtered_and_reported(api, draft):
    dump = gzip.compress(
        kubectl_json([deployment(f"d{i}", i, "prod" if i % 2 else "dev") for i in range(8)])
    )
    started = start(api, draft, dump, revision=1)
    assert started.status_code == 202, started.content
    run = started.json()
    assert run["state"] == "queued" and run["summary"] is None
    work()
    polled = api.get(f"/api/v1/impact-runs/{run['id']}").json()
    assert polled["state"] == "done" and polled["objects"] == 8 and polled["evaluated"] == 8
    denied = polled["summary"]["CREATE"]["deny"]
    assert denied > 0
    rows = api.get(
        f"/api/v1/impact-runs/{run['id']}/rows", result="deny", operation="CREATE"
    ).json()
    assert rows["count"] == denied and all(r["CREATE"]["result"] == "deny" for r in rows["results"])
    page = api.get(
        f"/api/v1/impact-runs/{run['id']}/rows", namespace="prod", page_size=2, page=2
    ).json()
    assert (
        page["count"] == 4
        and page["pages"] == 2
        and [r["name"] for r in page["results"]] == ["d5", "d7"]
    )
    assert api.get(f"/api/v1/impact-runs/{run['id']}/rows", result="nope").status_code == 400
    # As ?defaulting=: a flag that is neither true nor false is a mistake, not false.
    assert api.get(f"/api/v1/impact-runs/{run['id']}/rows", changed="yes").status_code == 400
    report = api.get(f"/api/v1/impact-runs/{run['id']}/report")
    lines = b"".join(report.streaming_content).decode().splitlines()
    assert json.loads(lines[0])["state"] == "done" and len(lines) == 9


def test_a_run_can_be_cancelled_and_others_runs_are_404(api, draft, bob):
    from tests.api.conftest import client_for

    run = start(api, draft, kubectl_json([deployment("a", 1)])).json()
    assert client_for(bob).get(f"/api/v1/impact-runs/{run['id']}").status_code == 404
    cancelled = api.post(f"/api/v1/impact-runs/{run['id']}/cancel").json()
    assert cancelled["state"] == "cancelled"


def test_a_missing_dump_is_400_and_a_body_past_the_limit_413(api, draft):
    response = api.client.post(f"/api/v1/drafts/{draft.pk}/impact-runs", {}, **api._headers(None))
    assert response.status_code == 400
    response = api.client.post(
        f"/api/v1/drafts/{draft.pk}/impact-runs",
        {},
        CONTENT_LENGTH=str(2 * 2**30),
        **api._headers(None),
    )
    assert response.status_code == 413


def test_a_user_at_the_limit_of_runs_is_refused_before_the_upload_is_read(api, draft, settings):
    from rest_framework.parsers import MultiPartParser

    settings.POLICYEDITOR_IMPACT_RUNS_PER_USER = 1
    assert start(api, draft, kubectl_json([deployment("a", 1)])).status_code == 202

    def refuse(*args, **kwargs):
        raise AssertionError("the upload was parsed")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(MultiPartParser, "parse", refuse)
        refused = start(api, draft, kubectl_json([deployment("b", 1)]))
    assert refused.status_code == 409
    assert "You already have 1 impact run going" in refused.json()["detail"]


def test_a_large_upload_is_moved_into_the_impact_folder_not_copied(api, draft, settings, tmp_path):
    # Past FILE_UPLOAD_MAX_MEMORY_SIZE Django streams an upload to a temporary file; storage
    # renames that file into place (4 s of a 1 GiB upload's request went into copying it).
    from django.core.files.storage import filesystem

    settings.FILE_UPLOAD_MAX_MEMORY_SIZE = 1024
    settings.FILE_UPLOAD_TEMP_DIR = str(tmp_path)
    moved = []
    original = filesystem.file_move_safe

    def move(source, target, *args, **kwargs):
        moved.append((source, target))
        return original(source, target, *args, **kwargs)

    dump = kubectl_json([deployment(f"d{i}", i) for i in range(40)])
    assert len(dump) > 1024
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(filesystem, "file_move_safe", move)
        started = start(api, draft, dump)
    assert started.status_code == 202, started.content
    ((source, target),) = moved
    assert source.startswith(str(tmp_path)) and target.startswith(settings.POLICYEDITOR_IMPACT_DIR)
    from policyeditor.review.models import ImpactRun

    run = ImpactRun.objects.get(pk=started.json()["id"])
    with run.dump.open("rb") as stored:
        assert stored.read() == dump
    work()
    run.refresh_from_db()
    assert run.state == "done" and run.total == 40


def test_a_viewer_is_refused_a_start_before_the_upload_is_read_and_cancels_nobodys_run(
    team_draft, alice, bob, carol, dave
):
    from rest_framework.parsers import MultiPartParser

    from policyeditor.review.models import Action, AuditEvent
    from tests.api.conftest import client_for

    def refuse(*args, **kwargs):
        raise AssertionError("the upload was parsed")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(MultiPartParser, "parse", refuse)
        refused = start(client_for(carol), team_draft, kubectl_json([deployment("a", 1)]))
    assert refused.status_code == 403
    assert refused["Content-Type"] == "application/problem+json"
    assert "Only authors" in refused.json()["detail"]
    run = start(client_for(alice), team_draft, kubectl_json([deployment("a", 1)])).json()
    # A viewer still reads the run; neither a viewer nor another reviewer cancels it.
    assert client_for(carol).get(f"/api/v1/impact-runs/{run['id']}").status_code == 200
    for someone in (carol, bob):
        cancel = client_for(someone).post(f"/api/v1/impact-runs/{run['id']}/cancel")
        assert cancel.status_code == 403 and cancel["Content-Type"] == "application/problem+json"
    assert client_for(alice).get(f"/api/v1/impact-runs/{run['id']}").json()["state"] == "queued"
    cancelled = client_for(dave).post(f"/api/v1/impact-runs/{run['id']}/cancel")
    assert cancelled.status_code == 200 and cancelled.json()["state"] == "cancelled"
    assert AuditEvent.objects.get(action=Action.IMPACT_CANCELLED).actor == dave


@pytest.mark.parametrize(("value", "defaulting"), [("FALSE", False), ("0", False), ("True", True)])
def test_the_defaulting_switch_is_kept_and_shown_in_the_run_and_its_report(
    api, draft, value, defaulting
):
    started = start(api, draft, kubectl_json([deployment("a", 1)]), defaulting=value)
    assert started.status_code == 202 and started.json()["defaulting"] is defaulting
    work()
    polled = api.get(f"/api/v1/impact-runs/{started.json()['id']}").json()
    assert polled["defaulting"] is defaulting
    report = api.get(f"/api/v1/impact-runs/{polled['id']}/report")
    assert json.loads(next(iter(report.streaming_content)))["defaulting"] is defaulting


@pytest.mark.parametrize("value", ["maybe", "no", "off", "", "yes"])
def test_a_defaulting_value_other_than_true_false_1_or_0_is_a_400_naming_it(api, draft, value):
    refused = start(api, draft, kubectl_json([deployment("a", 1)]), defaulting=value)
    assert refused.status_code == 400
    assert refused["Content-Type"] == "application/problem+json"
    assert "defaulting" in refused.json()["detail"]
    from policyeditor.review.models import ImpactRun

    assert not ImpactRun.objects.exists()


@pytest.mark.parametrize("size", ["0", "-5", "ten", ""])
def test_a_page_size_below_1_or_not_a_number_is_a_400(api, draft, size):
    run = start(api, draft, kubectl_json([deployment("a", 1)])).json()
    work()
    refused = api.get(f"/api/v1/impact-runs/{run['id']}/rows", page_size=size)
    assert refused.status_code == 400
    assert refused["Content-Type"] == "application/problem+json"
    assert "page_size" in refused.json()["detail"]
    capped = api.get(f"/api/v1/impact-runs/{run['id']}/rows", page_size=5000)
    assert capped.status_code == 200 and capped.json()["count"] == 1


def test_policies_the_api_server_would_refuse_are_refused_before_the_upload_is_read(
    api, draft, alice
):
    from rest_framework.parsers import MultiPartParser

    from policyeditor.editor.services import save_draft
    from tests.builders import replica_limit

    policy = replica_limit(5)
    policy["spec"]["validations"][0]["expression"] = "object.spec.replicas <= "
    draft.refresh_from_db()
    save_draft(draft, [policy], expected_revision=draft.revision, author=alice)

    def refuse(*args, **kwargs):
        raise AssertionError("the upload was parsed")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(MultiPartParser, "parse", refuse)
        refused = start(api, draft, kubectl_json([deployment("b", 1)]))
    assert refused.status_code == 409
    assert "spec.validations[0].expression: Invalid value" in refused.json()["detail"]


def test_rows_and_the_report_give_the_api_servers_answer_before_and_after(
    api, team_draft, alice, bob
):
    from policyeditor.editor.services import save_draft
    from policyeditor.review import workflow
    from tests.builders import bound
    from tests.engine.impact.helpers import labelled, labels_policy

    # The approved r2 admits the unlabelled object's error (failurePolicy Ignore), r3 rejects it.
    for policy in (labels_policy("Ignore"), labels_policy("Fail")):
        team_draft.refresh_from_db()
        save_draft(team_draft, bound(policy), expected_revision=team_draft.revision, author=alice)
        if policy["spec"]["failurePolicy"] == "Ignore":
            workflow.request_review(alice, team_draft)
            workflow.approve(bob, team_draft, revision_number=2)
    dump = kubectl_json([deployment("unlabelled", 1), labelled("db", "db")])
    run = start(api, team_draft, dump, revision=3).json()
    work()
    rows = f"/api/v1/impact-runs/{run['id']}/rows"
    newly = api.get(rows, result="deniedNewly").json()
    assert newly["count"] == 1 and newly["results"][0]["name"] == "unlabelled"
    unlabelled = newly["results"][0]
    assert unlabelled["deniedNewly"] and unlabelled["changed"]
    for operation in ("CREATE", "UPDATE"):
        outcome = unlabelled[operation]
        assert (outcome["result"], outcome["before"]) == ("error", "error")
        assert (outcome["allowed"], outcome["allowedBefore"]) == (False, True)
    rejected = api.get(rows, result="rejected", operation="UPDATE").json()
    assert [row["name"] for row in rejected["results"]] == ["unlabelled", "db"]
    assert not rejected["results"][1]["deniedNewly"]  # denied by the approved revision too
    refused = api.get(rows, result="denied")
    assert refused.status_code == 400 and "rejected, deniedNewly" in refused.json()["detail"]
    summary = api.get(f"/api/v1/impact-runs/{run['id']}").json()["summary"]
    assert summary["deniedNewly"] == 1 and summary["UPDATE"]["errorRejected"] == 1
    report = api.get(f"/api/v1/impact-runs/{run['id']}/report")
    lines = [json.loads(line) for line in b"".join(report.streaming_content).splitlines()]
    assert lines[1]["CREATE"]["allowed"] is False and lines[1]["CREATE"]["allowedBefore"] is True


def test_a_run_names_the_policies_no_binding_references_which_act_on_nothing(api, alice):
    from policyeditor.api.examples import POLICY
    from policyeditor.editor.services import create_draft

    lone = create_draft(alice, [POLICY], name="lone")
    started = start(api, lone, kubectl_json([deployment("big", 9)]))
    assert started.json()["unboundPolicies"]["revision"] == [
        {"kind": "ValidatingAdmissionPolicy", "name": POLICY["metadata"]["name"]}
    ]
    work()
    polled = api.get(f"/api/v1/impact-runs/{started.json()['id']}").json()
    assert polled["unboundPolicies"]["baseline"] == []
    assert polled["summary"]["CREATE"]["skip"] == 1 and polled["summary"]["CREATE"]["deny"] == 0
