"""Exports of a draft's saved cases as kat, kaptest and Kyverno CLI zips: each unzipped runs with
`policyeditor test` to the same outcomes as the PolicyTest bundle."""

from __future__ import annotations

import io
import zipfile

import pytest
from django.urls import reverse

from policyeditor.review import bundle, testcases, workflow
from policyeditor.review.models import AuditEvent
from policyeditor.review.workflow import NotAllowed, WorkflowError
from tests.review.test_testcases import CASES_YAML

pytestmark = pytest.mark.django_db


@pytest.fixture
def cases(draft, alice):
    """The three saved cases of test_testcases: 4 and 5 replicas allowed, 6 denied."""
    return [testcases.save_case(alice, draft, testcases.parse_case(text)) for text in CASES_YAML]


FILES = {
    "kat": {
        "replica-limit/README.md",
        "replica-limit/replica-limit-example-com/policy.yaml",
        "replica-limit/replica-limit-example-com/tests/"
        "replica-limit.example.com.02-four-allowed.allow.object.yaml",
        "replica-limit/replica-limit-example-com/tests/"
        "replica-limit.example.com.03-six-denied.deny.namespaceObject.yaml",
    },
    "kaptest": {"replica-limit/kaptest.yaml", "replica-limit/resources.yaml"},
    "kyverno": {
        "replica-limit/02-four-allowed/kyverno-test.yaml",
        "replica-limit/03-six-denied/resource.yaml",
    },
}


def _run(data: bytes, tmp_path) -> str:
    from policyeditor.cli import main

    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        archive.extractall(tmp_path)
        names = set(archive.namelist())
    out, err = io.StringIO(), io.StringIO()
    status = main(["test", str(tmp_path / "replica-limit")], stdout=out, stderr=err)
    assert status == 0, out.getvalue() + err.getvalue()
    return out.getvalue(), names


@pytest.mark.parametrize("layout", ["kat", "kaptest", "kyverno"])
def test_each_layout_exports_a_zip_that_policyeditor_test_runs(
    draft,
    alice,
    cases,
    tmp_path,
    layout,
):
    revision = workflow.latest_revision(draft)
    filename, data = bundle.export_bundle(alice, draft, revision, layout)
    assert filename == f"replica-limit-r1.{layout}.zip"
    out, names = _run(data, tmp_path)
    assert FILES[layout] <= names, sorted(names)
    assert out.rstrip().endswith("3 passed, 0 failed")
    event = AuditEvent.objects.filter(draft=draft).order_by("-pk").first()
    assert event.detail == {"bundle": True, "layout": layout, "cases": 3}


def test_an_unknown_layout_is_refused(draft, alice):
    with pytest.raises(WorkflowError):
        bundle.export_bundle(alice, draft, workflow.latest_revision(draft), "gator")


def test_someone_who_cannot_see_the_draft_cannot_export_it(draft, make_user):
    outsider = make_user("eve")
    with pytest.raises(NotAllowed):
        bundle.export_bundle(outsider, draft, workflow.latest_revision(draft), "kyverno")


def test_the_export_view_serves_each_layout_and_refuses_others(client, draft, alice, cases):
    client.force_login(alice)
    url = reverse("review:bundle_export", args=[draft.pk, 1])
    response = client.get(url, {"layout": "kyverno"})
    assert response.status_code == 200
    assert response["Content-Type"] == "application/zip"
    assert 'filename="replica-limit-r1.kyverno.zip"' in response["Content-Disposition"]
    assert client.get(url, {"layout": "nope"}).status_code == 400
    page = client.get(reverse("review:cases", args=[draft.pk]))
    assert b"?layout=kaptest" in page.content
