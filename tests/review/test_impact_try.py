"""A run's row opens Try it with what the run evaluated: the object, its namespace, its defaulting."""

from __future__ import annotations

import pytest
from django.urls import reverse

from policyeditor.editor.services import create_draft
from policyeditor.review import impact_runs, workflow
from policyeditor.review.models import ImpactRun
from tests.builders import deployment, replica_limit, vap_binding
from tests.editor.formhtml import form_data, postable
from tests.engine.impact.helpers import kubectl_json
from tests.review.impact_worker import work

pytestmark = pytest.mark.django_db

POLICY = replica_limit(5)
# Only namespaces labelled environment=test: a row's outcome depends on its Namespace object.
BINDING = vap_binding(
    policy=POLICY["metadata"]["name"],
    matchResources={"namespaceSelector": {"matchLabels": {"environment": "test"}}},
)
TEST_A = {
    "apiVersion": "v1",
    "kind": "Namespace",
    "metadata": {"name": "test-a", "labels": {"environment": "test"}},
}


@pytest.fixture(autouse=True)
def impact_dir(settings, tmp_path):
    settings.POLICYEDITOR_IMPACT_DIR = str(tmp_path / "impact")


def run_of(alice, objects: list[dict], *, defaulting: bool = True) -> ImpactRun:
    draft = create_draft(alice, [POLICY, BINDING], name="env-limit")
    revision = workflow.latest_revision(draft)
    run = impact_runs.start_run(
        alice, draft, revision, kubectl_json(objects), defaulting=defaulting
    )
    work()
    run.refresh_from_db()
    assert run.state == "done", run.error
    return run


def try_it(client, run: ImpactRun, position: int, operation: str = "") -> tuple[dict, str]:
    """Follow the row's Try it link; evaluate what the editor opens with, as its form would."""
    url = reverse("review:impact_try", args=[run.draft_id, run.pk, position])
    opened = client.get(url + (f"?operation={operation}" if operation else ""), follow=True)
    html = opened.content.decode()
    values = form_data(html, "try-form")
    payload = postable(form_data(html))
    payload.update(postable(values))
    answer = client.post(
        reverse("editor:draft_try", args=[run.draft_id]), payload, headers={"HX-Request": "true"}
    )
    return values, answer.content.decode()


def test_the_row_opens_with_the_namespace_object_the_dump_held_and_gets_the_runs_outcome(
    alice, alice_client
):
    # The Namespace comes after the object in the dump, as `kubectl get deploy,ns -A` prints it.
    run = run_of(alice, [deployment("web", "test-a", 7), TEST_A])
    assert run.results.get(position=0).create_result == "deny"
    values, answer = try_it(alice_client, run, 0)
    assert "environment: test" in values["try_namespace_object"]
    assert values["try_operation"] == "CREATE" and values["try_old_object"] == ""
    assert "denied" in answer and "must be at most 5" in answer


def test_the_row_of_a_run_without_defaulting_opens_with_defaulting_skipped(alice, alice_client):
    bare = deployment("web", "test-a")
    del bare["spec"]["replicas"]  # defaulting would set 1, which the policy allows
    run = run_of(alice, [TEST_A, bare], defaulting=False)
    assert run.results.get(position=1).create_result == "error"
    values, answer = try_it(alice_client, run, 1)
    assert values["try_no_defaulting"] == "on"
    assert "no such key" in answer
    with_defaults = run_of(alice, [TEST_A, bare])
    assert with_defaults.results.get(position=1).create_result == "allow"
    values, answer = try_it(alice_client, with_defaults, 1)
    assert "try_no_defaulting" not in values and ">allowed<" in answer


def test_the_update_link_makes_the_object_its_own_old_object(alice, alice_client):
    run = run_of(alice, [TEST_A, deployment("web", "test-a", 7)])
    values, answer = try_it(alice_client, run, 1, "UPDATE")
    assert values["try_operation"] == "UPDATE"
    assert "name: web" in values["try_old_object"]
    assert "denied" in answer


def test_a_run_on_an_earlier_revision_says_try_it_evaluates_the_draft_as_it_is_now(
    alice, alice_client
):
    from tests.review.conftest import edit

    run = run_of(alice, [TEST_A, deployment("web", "test-a", 7)])
    edit(run.draft, alice, 9)
    opened = alice_client.get(
        reverse("review:impact_try", args=[run.draft_id, run.pk, 1]), follow=True
    )
    assert "Try it evaluates the draft as it is now (r2); this run evaluated r1." in (
        opened.content.decode()
    )


def test_inputs_kept_from_earlier_tries_do_not_change_the_rows_outcome(alice, alice_client):
    from policyeditor.editor import try_store

    run = run_of(alice, [TEST_A, deployment("web", "test-a", 7)])
    # An earlier try on the draft: a subresource (the policy's rules match none) and a user.
    kept = {"try_sub_resource": "status", "try_username": "bob", "try_dry_run": "on"}
    try_store.remember(run.draft, alice, kept)
    values, answer = try_it(alice_client, run, 1)
    assert values["try_sub_resource"] == "" and values["try_username"] == ""
    assert "try_dry_run" not in values
    assert "denied" in answer and "must be at most 5" in answer
