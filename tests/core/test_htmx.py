"""htmx conventions: typed requests, django-htmx's response helpers, one copy of each partial."""

from __future__ import annotations

import re
from pathlib import Path

from django.template.loader import render_to_string

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "policyeditor"
VIEWS = [
    *sorted((PACKAGE / "editor" / "views").glob("*.py")),
    *sorted((PACKAGE / "review" / "views").glob("*.py")),
    PACKAGE / "teams" / "views.py",
]
TEMPLATES = [*PACKAGE.glob("*/templates/**/*.html"), *(ROOT / "templates").glob("**/*.html")]
PARTIALS = PACKAGE / "editor" / "templates" / "editor" / "partials.html"


def test_views_take_the_typed_htmx_request():
    untyped = [str(p.relative_to(ROOT)) for p in VIEWS if "request: HttpRequest" in p.read_text()]
    assert untyped == []


def test_no_view_writes_an_htmx_response_header_by_hand():
    by_hand = re.compile(r"""\[\s*["']HX-""")
    found = [
        str(path.relative_to(ROOT))
        for path in PACKAGE.rglob("*.py")
        if by_hand.search(path.read_text(encoding="utf-8"))
    ]
    assert found == []


def test_status_badges_and_yaml_previews_are_written_once_in_the_partials():
    copies = re.compile(
        r'class="pill status-\{\{|id="status-badge"|id="yaml-preview"|data-testid="revision-yaml"'
    )
    found = [
        str(path.relative_to(ROOT))
        for path in TEMPLATES
        if path != PARTIALS and copies.search(path.read_text(encoding="utf-8"))
    ]
    assert found == []


def test_the_live_preview_partial_swaps_out_of_band_and_escapes():
    html = render_to_string(
        "editor/partials.html#yaml_preview", {"yaml": "a: <b>", "pane": True, "oob": True}
    )
    assert html.startswith('<pre class="code yaml-preview" id="yaml-preview" hx-swap-oob="true"')
    assert "a: &lt;b&gt;</pre>" in html


def test_the_draft_status_partial_shows_the_state_as_a_pill():
    html = render_to_string(
        "editor/partials.html#draft_status",
        {"status": "in_review", "label": "In review", "badge_id": "review-status"},
    )
    assert html == '<span class="pill status-in_review" id="review-status">In review</span>'


def test_a_revisions_yaml_is_the_same_partial_without_the_panes_id_and_label():
    html = render_to_string(
        "editor/partials.html#yaml_preview", {"yaml": "a: 1", "testid": "revision-yaml"}
    )
    assert html == '<pre class="code" data-testid="revision-yaml">a: 1</pre>'
