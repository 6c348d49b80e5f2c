"""Impact analysis in a real browser: start a run, close the page, a worker finishes it, reopen it."""

from __future__ import annotations

import pytest

from policyeditor.editor.services import create_draft
from policyeditor.engine.manifests.loading import dump_documents
from policyeditor.review import workflow
from policyeditor.teams.models import Membership, Team
from tests.builders import bound
from tests.builders import replica_limit as policy
from tests.review.impact_worker import work

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def impact_dir(settings, tmp_path):
    settings.POLICYEDITOR_IMPACT_DIR = str(tmp_path / "impact")


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


def test_a_run_started_then_left_is_finished_by_a_worker_and_shows_counts_when_reopened(
    alice_page, alice, bob
):
    team = Team.objects.create(name="platform")
    Membership.objects.create(team=team, user=alice, role="author")
    Membership.objects.create(team=team, user=bob, role="reviewer")
    draft = create_draft(alice, bound(policy(5)), name="limits")
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
    tab.get_by_role("button", name="Analyse").click()
    tab.get_by_test_id("impact-progress").wait_for()
    assert "You can close this page" in tab.get_by_test_id("impact-progress").inner_text()
    run_url = tab.url
    assert tab.console_errors == []
    # The page is closed: nothing in the browser drives the run any more.
    context = tab.context
    tab.close()
    work()  # a task worker (`manage.py db_worker`) takes the queued tasks
    later = context.new_page()
    later.goto(run_url)
    later.get_by_test_id("impact-counts").wait_for()
    rows = later.get_by_test_id("impact-counts").locator("tbody tr")
    # replicas 0..7 repeated: 6 and 7 exceed 5, so 600 of 2400 are denied on each operation
    # (results, then mutated, then the requests the API server rejects)
    for index in range(2):
        cells = rows.nth(index).locator("td").all_inner_texts()
        assert cells == ["1800", "600", "0", "0", "0", "0", "0", "600"]
    later.get_by_label("Result").select_option("deny")
    later.get_by_label("Name contains").fill("web-7")
    later.get_by_role("button", name="Filter").click()
    table = later.get_by_test_id("impact-table")
    assert "Deployment default/web-7" in table.inner_text()
    assert "must be at most 5" in table.inner_text()
    later.get_by_role("link", name="Try it").first.click()
    later.wait_for_load_state("networkidle")
    # The editor opens on Try it, which evaluates the row's object as the run did.
    assert later.get_by_role("tab", name="Try it").get_attribute("aria-selected") == "true"
    assert "name: web-7" in later.locator("#try-object").input_value()
    result = later.locator("#try-result")
    result.get_by_text("must be at most 5").first.wait_for()
    assert "denied" in result.inner_text()


def test_an_open_run_page_polls_its_state_and_shows_the_counts_when_the_run_ends(alice_page, alice):
    draft = create_draft(alice, bound(policy(5)), name="limits")
    tab = alice_page
    tab.goto(f"/reviews/drafts/{draft.pk}/r/1/impact/")
    tab.get_by_label("Objects (paste)").fill(_deployments(16))
    tab.get_by_role("button", name="Analyse").click()
    progress = tab.get_by_test_id("impact-progress")
    progress.wait_for()
    polls = []
    tab.on("response", lambda r: "poll=1" in r.url and polls.append(r.status))
    tab.wait_for_timeout(2500)
    assert polls and set(polls) == {200}  # the run's state, not the work
    work()
    tab.get_by_test_id("impact-counts").wait_for(timeout=15_000)
    assert 204 in polls  # the poll that saw the run done asked htmx to reload the page
    cells = tab.get_by_test_id("impact-counts").locator("tbody tr").first.locator("td")
    assert cells.all_inner_texts()[:2] == ["12", "4"]
    assert tab.console_errors == []


def test_a_viewer_sees_the_runs_but_neither_the_start_form_nor_the_cancel_button(
    page, alice, carol
):
    from policyeditor.review import impact_runs
    from tests.conftest import sign_in

    team = Team.objects.create(name="platform")
    Membership.objects.create(team=team, user=alice, role="author")
    Membership.objects.create(team=team, user=carol, role="viewer")
    draft = create_draft(alice, bound(policy(5)), name="limits")
    workflow.assign_team(alice, draft, team)
    run = impact_runs.start_run(alice, draft, workflow.latest_revision(draft), _deployments(3))
    sign_in(page, "carol")
    page.goto(f"/reviews/drafts/{draft.pk}/")
    page.get_by_role("link", name="Impact analysis").click()
    assert "not start them" in page.get_by_test_id("impact-start-refused").inner_text()
    assert page.get_by_role("button", name="Analyse").count() == 0
    page.get_by_role("link", name="r1 on 0 objects").click()
    page.get_by_test_id("impact-progress").wait_for()
    assert page.get_by_role("button", name="Cancel run").count() == 0
    assert page.get_by_test_id("impact-cancel-refused").is_visible()
    assert page.url.endswith(run.get_absolute_url()) and page.console_errors == []
