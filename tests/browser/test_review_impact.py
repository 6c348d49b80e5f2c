"""Impact analysis in a real browser: progress through htmx steps, then counts and a table."""

from __future__ import annotations

import pytest

from policyeditor.editor.services import create_draft
from policyeditor.engine.manifests.loading import dump_documents
from policyeditor.review import workflow
from policyeditor.teams.models import Membership, Team
from tests.builders import replica_limit as policy

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _deployments(count: int) -> str:
    items = [
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": f"web-{i}", "namespace": "default"},
            "spec": {"replicas": i % 8},
        }
        for i in range(count)
    ]
    return dump_documents([{"apiVersion": "v1", "kind": "List", "items": items}])


def test_an_impact_run_shows_progress_then_counts_and_filters(alice_page, alice, bob):
    team = Team.objects.create(name="platform")
    Membership.objects.create(team=team, user=alice, role="author")
    Membership.objects.create(team=team, user=bob, role="reviewer")
    draft = create_draft(alice, [policy(5)], name="limits")
    workflow.assign_team(alice, draft, team)
    tab = alice_page
    tab.goto(f"/reviews/drafts/{draft.pk}/")
    tab.get_by_role("link", name="Impact analysis").click()
    tab.get_by_label("…or upload objects").set_input_files(
        files=[
            {
                "name": "dump.yaml",
                "mimeType": "application/yaml",
                "buffer": _deployments(2400).encode(),
            }
        ]
    )
    steps = []
    tab.on("response", lambda r: r.url.endswith("/step/") and steps.append(r.status))
    tab.get_by_role("button", name="Analyse").click()
    tab.get_by_test_id("impact-counts").wait_for(timeout=60_000)
    assert steps == [200, 200, 204]  # two progress updates of 1000 objects, then the refresh
    rows = tab.get_by_test_id("impact-counts").locator("tbody tr")
    # replicas 0..7 repeated: 6 and 7 exceed 5, so 600 of 2400 are denied on each operation
    for index in range(2):
        cells = rows.nth(index).locator("td").all_inner_texts()
        assert cells == ["1800", "600", "0", "0", "0", "0", "0"]
    tab.get_by_label("Result").select_option("deny")
    tab.get_by_label("Name contains").fill("web-7")
    tab.get_by_role("button", name="Filter").click()
    table = tab.get_by_test_id("impact-table").inner_text()
    assert "Deployment default/web-7" in table
    assert "must be at most 5" in table
    assert tab.console_errors == []
