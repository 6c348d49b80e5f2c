"""Tests for the revision lists of the review page and the full history page."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from policyeditor.review.views import revisions
from tests.review.conftest import edit

pytestmark = pytest.mark.django_db


def _page(draft, number: int) -> str:
    return reverse("review:revision", args=[draft.pk, number])


def _history(draft) -> str:
    return reverse("review:history", args=[draft.pk])


def _with_revisions(draft, user, count: int):
    for limit in range(2, count + 1):
        edit(draft, user, limit, note=f"note {limit}")
    draft.refresh_from_db()
    return draft


def _sidebar(html: str) -> str:
    return html.split('id="revisions-heading"', 1)[1].split("</section>", 1)[0]


def _options(html: str) -> list[str]:
    select = html.split('id="id_against"', 1)[1].split("</select>", 1)[0]
    return re.findall(r'<option value="(\w+)"', select)


def test_the_review_page_lists_the_newest_revisions_and_links_to_the_full_history(
    draft, alice, client
):
    _with_revisions(draft, alice, revisions.RECENT_REVISIONS + 3)
    client.force_login(alice)
    latest = revisions.RECENT_REVISIONS + 3
    html = client.get(_page(draft, latest)).content.decode()
    sidebar = _sidebar(html)
    for number in range(4, latest + 1):
        assert f'href="{_page(draft, number)}"' in sidebar
    for number in (1, 2, 3):
        assert f'href="{_page(draft, number)}"' not in sidebar
    assert f'href="{_history(draft)}?compare={latest}"' in sidebar
    assert _options(html) == [str(n) for n in range(latest - 1, 3, -1)] + ["none"]
    assert "Compare with an older revision" in html


def test_an_old_revision_page_keeps_itself_and_its_baseline_in_the_lists(draft, alice, client):
    _with_revisions(draft, alice, revisions.RECENT_REVISIONS + 3)
    client.force_login(alice)
    html = client.get(_page(draft, 2)).content.decode()
    sidebar = _sidebar(html)
    assert f'aria-current="true">\n          <a href="{_page(draft, 2)}">r2</a>' in sidebar
    assert f'href="{_page(draft, 1)}"' in sidebar  # the baseline: the previous revision
    assert f'href="{_page(draft, 3)}"' not in sidebar
    assert '<option value="1" selected>' in html
    assert "Changes since r1" in html


def test_a_short_history_is_listed_whole_without_a_history_link(draft, alice, client):
    _with_revisions(draft, alice, 3)
    client.force_login(alice)
    html = client.get(_page(draft, 3)).content.decode()
    assert all(f'href="{_page(draft, n)}"' in _sidebar(html) for n in (1, 2, 3))
    assert _history(draft) not in html


def test_the_review_page_runs_as_many_queries_for_a_long_history_as_for_a_short_one(
    draft, alice, client, make_user
):
    from policyeditor.editor.services import create_draft
    from policyeditor.review.workflow import assign_team

    short = create_draft(alice, draft.documents, name="short")
    assign_team(alice, short, draft.workflow.team)
    _with_revisions(short, alice, 2)
    _with_revisions(draft, alice, revisions.RECENT_REVISIONS + 5)
    client.force_login(alice)
    counts = []
    for subject in (short, draft):
        client.get(_page(subject, subject.revision))
        with CaptureQueriesContext(connection) as queries:
            assert client.get(_page(subject, subject.revision)).status_code == 200
        counts.append(len(queries))
    assert counts[0] == counts[1]


def test_the_history_page_lists_every_revision_with_compare_links_and_paginates(
    draft, alice, client, monkeypatch
):
    monkeypatch.setattr(revisions, "HISTORY_PAGE_SIZE", 5)
    _with_revisions(draft, alice, 7)
    client.force_login(alice)
    html = client.get(_history(draft), {"compare": 3}).content.decode()
    assert "7 revisions" in html and "Page 1 of 2" in html
    for number in (7, 6, 5, 4):
        link = f'href="{_page(draft, 3)}?against={number}#diff">r3 against r{number}</a>'
        assert link in html
    assert "note 7" in html
    assert f'<tr aria-current="true">\n      <td><a href="{_page(draft, 3)}">r3</a>' in html
    older = client.get(_history(draft), {"compare": 3, "page": 2}).content.decode()
    assert f'href="{_page(draft, 1)}"' in older and f'href="{_page(draft, 7)}"' not in older
    assert f'href="{_page(draft, 3)}?against=1#diff"' in older
    assert 'href="?compare=3&amp;page=1"' in older


def test_the_history_page_compares_with_the_latest_revision_by_default(draft, alice, client):
    _with_revisions(draft, alice, 3)
    client.force_login(alice)
    for query in ({}, {"compare": "x"}, {"compare": "99"}):
        html = client.get(_history(draft), query).content.decode()
        assert f'href="{_page(draft, 3)}?against=1#diff">r3 against r1</a>' in html
        assert "Back to r3" in html
