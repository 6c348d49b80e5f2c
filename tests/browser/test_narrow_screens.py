"""Narrow screens (a 390 x 844 phone): no page scrolls sideways, toolbars keep to a sixth of the
height."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from policyeditor.editor.services import create_draft
from policyeditor.editor.starters import get_starter
from policyeditor.review import workflow
from policyeditor.review.editor_hooks import join_team
from policyeditor.teams.models import Team
from tests.browser import editor_helpers  # noqa: F401  (longer expect timeout)
from tests.conftest import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTH, HEIGHT = 390, 844


@pytest.fixture
def phone(browser, live_server, alice, bob):
    """alice on a phone-sized viewport, with a team draft that has a share link."""
    call_command("create_team", "platform", "--member", "alice:author", "--member", "bob:reviewer")
    draft = create_draft(alice, get_starter("replica-limit").documents(), kind="VAP")
    join_team(draft, Team.objects.get(name="platform"))
    link = workflow.create_share_link(alice, draft, draft.revisions.get(number=1))
    context = browser.new_context(
        base_url=live_server.url, viewport={"width": WIDTH, "height": HEIGHT}, is_mobile=True
    )
    tab = context.new_page()
    sign_in(tab, "alice")
    yield tab, draft, link
    context.close()


def _pages(draft, link) -> list[str]:
    pk = draft.pk
    return [
        "/drafts/",
        "/drafts/new/",
        "/drafts/import/",
        f"/drafts/{pk}/",
        "/reviews/",
        "/reviews/activity/",
        f"/reviews/drafts/{pk}/",
        f"/reviews/drafts/{pk}/r/1/",
        f"/reviews/drafts/{pk}/revisions/",
        f"/reviews/drafts/{pk}/tests/",
        f"/reviews/drafts/{pk}/r/1/impact/",
        link.get_absolute_url(),
        "/api/settings/tokens/",
        "/api/docs/",
    ]


def test_no_page_scrolls_sideways_at_390_px(phone):
    tab, draft, link = phone
    wide = {}
    for url in _pages(draft, link):
        response = tab.goto(url)
        assert response is not None and response.ok, url
        tab.wait_for_load_state("networkidle")
        width = tab.evaluate("document.documentElement.scrollWidth")
        if width > WIDTH:
            wide[url] = width
    assert wide == {}


def test_the_editor_toolbars_take_at_most_a_sixth_of_the_screen_at_390_px(phone):
    tab, draft, _ = phone
    tab.goto(f"/drafts/{draft.pk}/")
    expect(tab.locator("#status-badge")).to_have_text("valid for Kubernetes 1.37")
    tab.mouse.wheel(0, 1200)
    tab.wait_for_timeout(200)
    # What stays on screen while scrolling: every sticky or fixed bar at the top.
    stuck = tab.evaluate(
        """() => [...document.querySelectorAll('header, .editor-bar, .tabs')]
          .filter((el) => ['sticky', 'fixed'].includes(getComputedStyle(el).position))
          .map((el) => el.getBoundingClientRect())
          .filter((r) => r.top < 5 && r.bottom > 0)
          .reduce((sum, r) => sum + r.height, 0)"""
    )
    assert 0 < stuck <= HEIGHT / 6, stuck
    assert tab.locator("#editor-bar").bounding_box()["height"] <= HEIGHT / 6
    tab.get_by_role("button", name="Preview").click()
    expect(tab.locator("#yaml-preview")).to_be_visible()
    assert tab.evaluate("document.documentElement.scrollWidth") <= WIDTH
