"""The schema library in the browser: a refused import (the journeys of each CRD: test_crd_journeys)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.crd_cases import BY_ID

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_bad_crd_import_shows_the_api_servers_message_and_stores_nothing(alice_page, team):
    page = alice_page
    page.goto(f"/schemas/teams/{team.pk}/")
    text = BY_ID["certificate"].path.read_text().replace("scope: Namespaced", "scope: Global")
    page.get_by_label("Paste CRDs").fill(text)
    page.get_by_role("button", name="Import").click()
    expect(page.locator("#import-error")).to_contain_text(
        'spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"'
    )
    expect(page.locator("#library-empty")).to_be_visible()
