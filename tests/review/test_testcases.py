"""Tests for saved test cases: runs per revision, changed outcomes, PolicyTest bundles."""

from __future__ import annotations

import io
import zipfile

import pytest

from policyeditor.review import bundle, testcases, workflow
from policyeditor.review.models import SavedTestCase
from policyeditor.review.workflow import NotAllowed, WorkflowError
from tests.review.conftest import approved_then_edited

pytestmark = pytest.mark.django_db


def deployment(name: str, replicas: int) -> dict:
    """A Deployment with `replicas`."""
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"replicas": replicas},
    }


CASES_YAML = [
    "name: four-allowed\nobject: {apiVersion: apps/v1, kind: Deployment, metadata: {name: a, namespace: default}, spec: {replicas: 4}}\nexpect: {result: allow}\n",
    "name: five-allowed\nobject: {apiVersion: apps/v1, kind: Deployment, metadata: {name: b, namespace: default}, spec: {replicas: 5}}\nexpect: {result: allow}\n",
    "name: six-denied\nobject: {apiVersion: apps/v1, kind: Deployment, metadata: {name: c, namespace: default}, spec: {replicas: 6}}\nexpect: {result: deny, messages: [at most]}\n",
]


@pytest.fixture
def cases(draft, alice):
    """Three saved cases on the draft: 4 and 5 replicas allowed, 6 denied (limit 5)."""
    return [testcases.save_case(alice, draft, testcases.parse_case(text)) for text in CASES_YAML]


def test_saved_cases_run_on_a_revision_through_the_cli_runner(draft, cases):
    report = testcases.report_for(draft, workflow.latest_revision(draft), baseline=None)
    assert [(run.name, run.passed, run.result) for run in report.runs] == [
        ("five-allowed", True, "allow"),
        ("four-allowed", True, "allow"),
        ("six-denied", True, "deny"),
    ]
    assert "must be at most 5" in report.runs[2].message


def test_a_stricter_revision_reports_objects_it_now_denies_against_the_approved_one(
    draft, cases, alice, bob
):
    approved_then_edited(draft, alice, bob, 3)
    report = testcases.report_for(
        draft, workflow.latest_revision(draft), baseline=workflow.approved_revision(draft)
    )
    assert report.passed == 1 and report.failed == 2
    assert {(c.name, c.before, c.after) for c in report.changes} == {
        ("four-allowed", "allow", "deny"),
        ("five-allowed", "allow", "deny"),
    }
    assert report.sentences == ["This change now denies 2 objects that were allowed."]


def test_a_looser_revision_reports_one_object_now_allowed(draft, cases, alice, bob):
    approved_then_edited(draft, alice, bob, 9)
    report = testcases.report_for(
        draft, workflow.latest_revision(draft), baseline=workflow.approved_revision(draft)
    )
    assert report.sentences == ["This change now allows 1 object that was denied."]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("- a\n- b\n", "mapping|document"),
        ("object: {}\nexpect: {result: allow}\n", "needs a name"),
        ("name: x\nobject: {}\n", "needs `expect`"),
        ("name: [unclosed\n", "test case"),
    ],
)
def test_malformed_cases_are_refused_with_a_reason(text, message):
    with pytest.raises(WorkflowError, match=message):
        testcases.parse_case(text)


def test_a_malformed_saved_case_fails_with_the_runners_message_not_an_exception(draft, alice):
    testcases.save_case(
        alice, draft, {"name": "bad", "object": deployment("x", 1), "expect": {"result": "maybe"}}
    )
    (run,) = testcases.report_for(draft, workflow.latest_revision(draft), baseline=None).runs
    assert not run.passed
    assert "Unsupported value" in " ".join(run.failures)


def test_only_authors_manage_cases(draft, carol, cases):
    with pytest.raises(NotAllowed):
        testcases.save_case(carol, draft, {"name": "x", "expect": {"result": "allow"}})
    with pytest.raises(NotAllowed):
        testcases.delete_case(carol, cases[0])


def test_saving_a_case_with_an_existing_name_replaces_it(draft, alice, cases):
    testcases.save_case(
        alice,
        draft,
        {"name": "six-denied", "object": deployment("c", 7), "expect": {"result": "deny"}},
    )
    assert SavedTestCase.objects.filter(draft=draft).count() == 3
    assert SavedTestCase.objects.get(name="six-denied").case["object"]["spec"]["replicas"] == 7


def test_the_exported_bundle_runs_unchanged_with_policyeditor_test(draft, alice, cases, tmp_path):
    from policyeditor.cli import main

    filename, data = bundle.export_bundle(alice, draft, workflow.latest_revision(draft))
    assert filename == "replica-limit-r1.policytest.zip"
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        assert sorted(archive.namelist()) == [
            "replica-limit/policy.yaml",
            "replica-limit/replica-limit.policytest.yaml",
        ]
        archive.extractall(tmp_path)
    out, err = io.StringIO(), io.StringIO()
    status = main(["test", str(tmp_path / "replica-limit")], stdout=out, stderr=err)
    assert status == 0, out.getvalue() + err.getvalue()
    assert out.getvalue().rstrip().endswith("3 passed, 0 failed")


def test_importing_an_exported_bundle_recreates_the_draft_and_its_cases(draft, alice, cases, team):
    _, data = bundle.export_bundle(alice, draft, workflow.latest_revision(draft))
    copy = bundle.import_bundle(alice, data, team=team)
    assert copy.pk != draft.pk
    assert copy.documents == draft.documents
    assert copy.workflow.team == team
    assert sorted(copy.saved_test_cases.values_list("name", flat=True)) == [
        "five-allowed",
        "four-allowed",
        "six-denied",
    ]


def _zip(files: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return buffer.getvalue()


def test_import_inlines_object_files_named_by_cases(alice):
    from policyeditor.engine.manifests.loading import dump_documents
    from tests.builders import replica_limit as policy

    data = _zip(
        {
            "suite/policy.yaml": dump_documents([policy(5)]),
            "suite/objects/big.yaml": dump_documents([deployment("big", 9)]),
            "suite/t.policytest.yaml": (
                "apiVersion: policyeditor.dev/v1\nkind: PolicyTest\npolicies: [policy.yaml]\n"
                "cases:\n- name: big\n  objectFile: objects/big.yaml\n  expect: {result: deny}\n"
            ),
        }
    )
    draft = bundle.import_bundle(alice, data)
    (saved,) = draft.saved_test_cases.all()
    assert saved.case["object"]["spec"]["replicas"] == 9
    assert "objectFile" not in saved.case


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ({"a.txt": "x"}, "one \\*.policytest.yaml"),
        ({"../evil.policytest.yaml": "kind: PolicyTest"}, "Unsafe path"),
        (
            {"t.policytest.yaml": "kind: PolicyTest\npolicies: [missing.yaml]\n"},
            "not in the bundle",
        ),
        ({"t.policytest.yaml": "kind: Other\n"}, "kind must be PolicyTest"),
        (
            {"t.policytest.yaml": "kind: PolicyTest\ncases:\n- {name: a}\n- {name: a}\n"},
            "unique name",
        ),
    ],
)
def test_bad_bundles_are_refused_with_a_reason(alice, files, message):
    with pytest.raises(WorkflowError, match=message):
        bundle.import_bundle(alice, _zip(files))


def test_a_file_that_is_not_a_zip_is_refused(alice):
    with pytest.raises(WorkflowError, match="Not a zip"):
        bundle.import_bundle(alice, b"hello")


def test_importing_into_a_team_needs_author_rights(carol, team):
    with pytest.raises(NotAllowed):
        bundle.import_bundle(carol, b"", team=team)
