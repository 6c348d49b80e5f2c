"""Web runs answer as the cluster: unbound policies named, namespaces standing, new mutations changed."""

from __future__ import annotations

import pytest
from django.urls import reverse

from policyeditor.editor.services import create_draft, save_draft
from policyeditor.review import impact_runs, workflow
from policyeditor.review.impact_report import run_dict
from policyeditor.review.models import ImpactRun
from tests.builders import bound, document, namespace, replica_limit, rules
from tests.engine.impact.helpers import deployment, kubectl_json
from tests.review.impact_worker import work
from tests.review.test_impact_try import BINDING, POLICY, try_it

pytestmark = pytest.mark.django_db

UNBOUND = "ValidatingAdmissionPolicy &#x27;replica-limit.example.com&#x27; has no binding in"


@pytest.fixture(autouse=True)
def impact_dir(settings, tmp_path):
    settings.POLICYEDITOR_IMPACT_DIR = str(tmp_path / "impact")


def finished(user, draft, objects: list[dict], namespaces: list[dict] | None = None) -> ImpactRun:
    """A run of the draft's latest revision over `objects`, worked to its end."""
    run = impact_runs.start_run(
        user,
        draft,
        workflow.latest_revision(draft),
        kubectl_json(objects),
        kubectl_json(namespaces) if namespaces else None,
    )
    work()
    run.refresh_from_db()
    assert run.state == "done", run.error
    return run


def save(draft, user, documents: list[dict]) -> None:
    draft.refresh_from_db()
    save_draft(draft, documents, expected_revision=draft.revision, author=user)


def test_a_run_of_an_unbound_policy_denies_nothing_and_its_page_and_json_say_why(
    client, draft, alice
):
    run = finished(alice, draft, [deployment("web", 9)])
    row = run.results.get()
    assert (row.create_result, row.update_result, row.changed) == ("skip", "skip", False)
    assert run_dict(run)["unboundPolicies"] == {
        "revision": [{"kind": "ValidatingAdmissionPolicy", "name": "replica-limit.example.com"}],
        "baseline": [],
    }
    client.force_login(alice)
    html = client.get(run.get_absolute_url()).content.decode()
    assert html.count('data-testid="impact-unbound"') == 1
    assert f"{UNBOUND} r1: a cluster ignores a policy no binding references" in html


def test_an_unbound_policy_in_the_approved_revision_does_not_hide_new_denials(
    client, draft, alice, bob
):
    workflow.request_review(alice, draft)
    workflow.approve(bob, draft, revision_number=1)
    save(draft, alice, bound(replica_limit(5)))
    run = finished(alice, draft, [deployment("big", 9), deployment("small", 1)])
    big = run.results.get(name="big")
    assert (big.create_before, big.create_result, big.changed) == ("skip", "deny", True)
    small = run.results.get(name="small")
    assert (small.create_before, small.create_result) == ("skip", "allow")
    unbound = run_dict(run)["unboundPolicies"]
    assert unbound["revision"] == [] and len(unbound["baseline"]) == 1
    client.force_login(alice)
    html = client.get(run.get_absolute_url()).content.decode()
    assert f"{UNBOUND} the approved r1" in html


def test_rows_the_revision_newly_mutates_are_stored_as_changed(draft, alice, bob):
    mutation = {
        "patchType": "ApplyConfiguration",
        "applyConfiguration": {
            "expression": 'Object{metadata: Object.metadata{labels: {"checked": "yes"}}}'
        },
    }
    spec = {"matchConstraints": rules(), "mutations": [mutation], "reinvocationPolicy": "Never"}
    labelling = document("MutatingAdmissionPolicy", "label", spec)
    save(draft, alice, bound(replica_limit(5)))
    workflow.request_review(alice, draft)
    workflow.approve(bob, draft, revision_number=2)
    save(draft, alice, [*bound(replica_limit(5)), *bound(labelling)])
    run = finished(alice, draft, [deployment("a", 1), deployment("b", 2)])
    assert run.baseline.number == 2
    assert all(r.create_mutated and r.create_result == r.create_before for r in run.results.all())
    assert [r.name for r in impact_runs.filter_results(run, only_changed=True)] == ["a", "b"]
    assert run.summary["changed"] == 2


def test_a_drafts_namespace_leaves_missing_namespaces_standing_and_applies_over_the_dumps(
    alice, alice_client
):
    # The binding selects namespaces labelled environment=test; the draft labels test-a so.
    drafted = namespace("test-a", environment="test")
    draft = create_draft(alice, [POLICY, BINDING, drafted], name="env-limit")
    objects = [deployment("web", 7, "test-a"), deployment("other", 7, "prod")]
    run = finished(alice, draft, objects, [namespace("test-a", team="a")])
    results = {r.name: (r.create_result, r.create_message) for r in run.results.all()}
    assert results["web"][0] == "deny"
    assert results["other"] == ("skip", "")  # prod: not in the dump, yet it exists
    assert run.missing_namespaces == ["prod"]
    # Try it opens with the Namespace the run saw: the dump's, with the draft's labels on it.
    values, answer = try_it(alice_client, run, 0)
    assert "environment: test" in values["try_namespace_object"]
    assert "team: a" in values["try_namespace_object"]
    assert "denied" in answer and "must be at most 5" in answer


def test_the_run_page_of_bound_policies_has_no_unbound_warning(client, alice):
    draft = create_draft(alice, [POLICY, BINDING], name="env-limit")
    run = finished(alice, draft, [deployment("web", 1)])
    client.force_login(alice)
    html = client.get(reverse("review:impact_run", args=[draft.pk, run.pk])).content.decode()
    assert "impact-unbound" not in html
    assert run_dict(run)["unboundPolicies"] == {"revision": [], "baseline": []}
