"""Script payloads in every text field come back escaped: names, messages, YAML, previews, diffs."""

from __future__ import annotations

import pytest
from django.utils.html import escape

from policyeditor.editor.services import create_draft, save_draft
from tests.security.conftest import text
from tests.security.hostile import as_yaml
from tests.security.xss import ALL, IMG, SCRIPT, SVG, deployment, hostile_documents, live_markup

pytestmark = pytest.mark.django_db


@pytest.fixture
def hostile_draft(alice):
    """A draft whose name, description, documents and revision notes all carry the payloads."""
    draft = create_draft(
        alice, hostile_documents(), name=ALL, description=ALL, note=ALL, kind="VAP"
    )
    changed = hostile_documents()
    changed[0]["spec"]["validations"][0]["message"] = ALL + " (changed)"
    return save_draft(draft, changed, expected_revision=1, author=alice, note=ALL, name=ALL)


def assert_inert(response) -> str:
    """The page answered, shows the payload as text, and holds none of it as live markup."""
    assert response.status_code < 500
    html = response.content.decode()
    assert live_markup(html) == []
    return html


@pytest.mark.parametrize("payload", [SCRIPT, IMG, SVG, '<a href="javascript:alert(1)">x</a>'])
def test_the_checker_spots_each_payload_rendered_as_markup(payload):
    assert live_markup(f"<p>{payload}</p>") != []
    assert live_markup(f"<p>{escape(payload)}</p>") == []


def test_the_drafts_list_escapes_names_and_descriptions(ui, hostile_draft):
    html = assert_inert(ui.get("/drafts/"))
    assert "&lt;script&gt;alert(" in html


def test_the_list_search_echoes_the_query_escaped(ui, hostile_draft):
    assert_inert(ui.get("/drafts/", {"q": SCRIPT, "owner": ALL}))


def test_the_editor_page_escapes_every_field_and_the_yaml_preview(ui, hostile_draft):
    html = assert_inert(ui.get(f"/drafts/{hostile_draft.pk}/"))
    assert "&lt;script&gt;alert(" in html


def test_live_validation_escapes_errors_that_quote_the_input(ui, hostile_draft):
    docs = hostile_documents()
    docs[0]["spec"]["validations"][0]["expression"] = ALL  # a compile error quoting it
    response = ui.post(
        f"/drafts/{hostile_draft.pk}/validate/",
        {"docs": "dX", "dX:yaml": as_yaml(docs[0])},
        HTTP_HX_REQUEST="true",
    )
    html = assert_inert(response)
    assert "issue-error" in html and "&lt;script&gt;" in html


def test_yaml_problems_are_escaped(ui, hostile_draft):
    response = ui.post(
        f"/drafts/{hostile_draft.pk}/form/",
        {"yaml": f"kind: {SCRIPT}\nkind: twice\n"},
        HTTP_HX_REQUEST="true",
    )
    assert_inert(response)


def test_the_form_rebuilt_from_yaml_escapes_values(ui, hostile_draft):
    response = ui.post(
        f"/drafts/{hostile_draft.pk}/form/",
        {"yaml": "---\n".join(as_yaml(doc) for doc in hostile_documents())},
        HTTP_HX_REQUEST="true",
    )
    assert "&lt;script&gt;" in assert_inert(response)


def test_try_it_escapes_the_denial_message_warnings_and_object(ui, hostile_draft):
    docs = hostile_documents()
    response = ui.post(
        f"/drafts/{hostile_draft.pk}/try/",
        {
            "docs": ["d1", "d2", "d3"],
            "d1:yaml": as_yaml(docs[0]),
            "d2:yaml": as_yaml(docs[1]),
            "d3:yaml": as_yaml(docs[2]),
            "try_object": as_yaml(deployment()),
            "try_username": ALL,
            "try_groups": ALL,
        },
        HTTP_HX_REQUEST="true",
    )
    html = assert_inert(response)
    assert "&lt;script&gt;" in html


def test_saving_with_a_hostile_note_shows_the_status_escaped(ui, hostile_draft):
    response = ui.post(
        f"/drafts/{hostile_draft.pk}/save/",
        {
            "docs": "dX",
            "dX:yaml": as_yaml(hostile_documents()[0]),
            "expected_revision": hostile_draft.revision,
            "note": ALL,
        },
        HTTP_HX_REQUEST="true",
    )
    assert "Saved revision" in assert_inert(response)


def test_a_conflicting_save_message_is_escaped(ui, hostile_draft):
    response = ui.post(
        f"/drafts/{hostile_draft.pk}/save/",
        {"docs": "dX", "dX:yaml": as_yaml(hostile_documents()[0]), "expected_revision": 1},
        HTTP_HX_REQUEST="true",
    )
    assert "while you were editing revision 1" in assert_inert(response)


def test_the_import_page_echoes_bad_yaml_escaped(ui):
    response = ui.post("/drafts/import/", {"yaml": f"{SCRIPT}: [", "kubernetes_version": "1.34"})
    assert response.status_code == 400
    assert_inert(response)


def test_the_new_draft_form_echoes_a_bad_name_escaped(ui):
    response = ui.post("/drafts/new/", {"kind": "VAP", "name": ALL, "kubernetes_version": "1.34"})
    assert response.status_code == 400
    assert_inert(response)


def test_the_review_page_escapes_notes_and_the_diff(ui, hostile_draft):
    html = assert_inert(ui.get(f"/reviews/drafts/{hostile_draft.pk}/r/2/"))
    assert "&lt;script&gt;" in html


def test_comments_render_markdown_without_raw_html_or_script_links(ui, hostile_draft):
    body = f"{ALL}\n\n[click me](javascript:alert('xss-link')) <b onclick=alert(1)>bold</b>"
    response = ui.post(
        f"/reviews/drafts/{hostile_draft.pk}/r/2/comments/", {"body": body}, follow=True
    )
    html = assert_inert(response)
    page = text(ui.get(f"/reviews/drafts/{hostile_draft.pk}/r/2/"))
    assert "click me" in page  # the comment was stored and shown...
    assert live_markup(ui.get(f"/reviews/drafts/{hostile_draft.pk}/r/2/").content.decode()) == []
    assert "<b onclick" not in html


def test_the_activity_and_inbox_pages_escape_draft_names(ui, hostile_draft):
    assert_inert(ui.get("/reviews/activity/"))
    assert_inert(ui.get("/reviews/"))


def test_the_yaml_export_is_served_as_text_not_html(ui, hostile_draft):
    response = ui.get(f"/drafts/{hostile_draft.pk}/export.yaml")
    assert response.status_code == 200
    assert not response["Content-Type"].startswith("text/html")
    assert response["X-Content-Type-Options"] == "nosniff"
