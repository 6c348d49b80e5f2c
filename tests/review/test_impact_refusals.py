"""Impact runs refuse, before any dump is sent, policies the API server would refuse to apply."""

from __future__ import annotations

import pytest
from django.urls import reverse

from policyeditor.editor.models import Revision
from policyeditor.editor.services import save_draft
from policyeditor.review import impact_runs, workflow
from policyeditor.review.models import ImpactRun
from policyeditor.review.workflow import WorkflowError
from tests.builders import replica_limit
from tests.engine.impact.helpers import deployment, kubectl_json
from tests.review.conftest import approved_then_edited

pytestmark = pytest.mark.django_db

DUMP = kubectl_json([deployment("a", 1)])


@pytest.fixture(autouse=True)
def impact_dir(settings, tmp_path):
    settings.POLICYEDITOR_IMPACT_DIR = str(tmp_path / "impact")
    return tmp_path / "impact"


def _broken(draft, user):
    """A new revision whose validation expression does not compile."""
    policy = replica_limit(5)
    policy["spec"]["validations"][0]["expression"] = "object.spec.replicas <= "
    draft.refresh_from_db()
    return save_draft(draft, [policy], expected_revision=draft.revision, author=user)


def test_a_revision_the_api_server_would_refuse_starts_no_run_and_says_why(
    draft, alice, impact_dir
):
    _broken(draft, alice)
    revision = workflow.latest_revision(draft)
    with pytest.raises(WorkflowError) as refused:
        impact_runs.start_run(alice, draft, revision, DUMP)
    message = str(refused.value)
    assert message.startswith(f"The API server (Kubernetes {revision.kubernetes_version}) would ")
    # In the API server's own words, as `kubectl apply` would print them.
    assert 'ValidatingAdmissionPolicy.admissionregistration.k8s.io "replica-limit.example.com"' in (
        message
    )
    assert "spec.validations[0].expression: Invalid value" in message
    assert not ImpactRun.objects.exists()
    assert not impact_dir.exists() or not any(p.is_file() for p in impact_dir.rglob("*"))


def test_a_revision_without_any_policy_starts_no_run(draft, alice):
    draft.refresh_from_db()
    params = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "limits"}}
    save_draft(draft, [params], expected_revision=draft.revision, author=alice)
    with pytest.raises(WorkflowError, match="holds no ValidatingAdmissionPolicy or Mutating"):
        impact_runs.start_run(alice, draft, workflow.latest_revision(draft), DUMP)


def test_a_baseline_the_api_server_would_refuse_is_named_as_the_baseline(draft, alice, bob):
    approved_then_edited(draft, alice, bob, 3)
    # The approved revision stopped being valid (a stored revision is never rewritten otherwise).
    broken = replica_limit(5)
    broken["spec"]["validations"][0]["expression"] = "object.spec.replicas <= "
    Revision.objects.filter(draft=draft, number=1).update(documents=[broken])
    with pytest.raises(WorkflowError, match=r"would refuse the approved r1 \(the baseline\)"):
        impact_runs.start_run(alice, draft, workflow.latest_revision(draft), DUMP)


def test_the_impact_page_says_so_before_a_dump_is_chosen_and_offers_no_form(
    alice_client, draft, alice
):
    _broken(draft, alice)
    revision = workflow.latest_revision(draft)
    page = alice_client.get(
        reverse("review:impact_new", args=[draft.pk, revision.number])
    ).content.decode()
    assert 'data-testid="impact-refused"' in page
    assert "spec.validations[0].expression: Invalid value" in page
    assert 'enctype="multipart/form-data"' not in page


def test_a_valid_revision_gets_the_form(alice_client, draft):
    page = alice_client.get(reverse("review:impact_new", args=[draft.pk, 1])).content.decode()
    assert 'data-testid="impact-refused"' not in page
    assert 'enctype="multipart/form-data"' in page
