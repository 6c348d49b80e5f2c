"""Screenshots of the editor at 1440 px and 390 px, light and dark (`make screenshots` keeps
them in docs/screenshots; a plain run writes them to a scratch folder)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from policyeditor.editor.services import create_draft
from policyeditor.editor.starters import get_starter
from tests.browser import editor_helpers  # noqa: F401  (longer expect timeout)
from tests.conftest import screenshot, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width,height", [(1440, 900), (390, 844)])
def test_the_editor_is_pictured_wide_and_narrow_in_light_and_dark(
    browser, live_server, alice, scheme, width, height
):
    draft = create_draft(alice, get_starter("replica-limit").documents(), kind="VAP")
    context = browser.new_context(
        base_url=live_server.url,
        viewport={"width": width, "height": height},
        color_scheme=scheme,
        is_mobile=width < 500,
    )
    tab = context.new_page()
    sign_in(tab, "alice")
    tab.goto(f"/drafts/{draft.pk}/")
    expect(tab.locator("#status-badge")).to_have_text("valid for Kubernetes 1.37")
    path = screenshot(tab, f"editor-{width}-{scheme}")
    assert path.stat().st_size > 10_000
    context.close()
