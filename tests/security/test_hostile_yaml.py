"""Hostile YAML posted everywhere a user can paste it: a specific refusal, never a 500, no change."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from policyeditor.editor.models import Draft
from tests.security.conftest import state, text
from tests.security.hostile import YAML_INPUTS, Hostile, params

pytestmark = pytest.mark.django_db

TEXT_INPUTS = [item for item in YAML_INPUTS if item.is_text]
UI_TOO_LARGE = "larger than 3 MiB"
API_TOO_LARGE = "Request entity too large: limit is 3145728"


# A JSON string field refuses NUL itself (DRF's CharField), before the YAML loader sees it.
API_FIELD_MESSAGES = {"nul-character": "yaml: Null characters are not allowed."}
# Likewise the import form's text field (Django's CharField), whose error shows at the field.
IMPORT_FIELD_MESSAGES = {"nul-character": "Null characters are not allowed."}


def ui_message(item: Hostile) -> str:
    return UI_TOO_LARGE if item.too_large else item.message


def api_message(item: Hostile) -> str:
    return API_TOO_LARGE if item.too_large else item.message


@pytest.mark.parametrize("item", params(YAML_INPUTS))
def test_the_import_page_refuses_it_with_its_reason_and_creates_nothing(ui, alice, item):
    drafts = Draft.objects.count()
    if item.is_text:
        data = {"yaml": item.payload, "kubernetes_version": "1.34"}
    else:  # bytes no form field can carry arrive as an uploaded file
        data = {
            "upload": SimpleUploadedFile("policy.yaml", item.payload),
            "kubernetes_version": "1.34",
        }
    response = ui.post("/drafts/import/", data)
    assert response.status_code == (413 if item.too_large else 400)
    assert IMPORT_FIELD_MESSAGES.get(item.name, ui_message(item)) in text(response)
    assert Draft.objects.count() == drafts


@pytest.mark.parametrize("item", TEXT_INPUTS, ids=str)
def test_saving_it_as_a_document_is_refused_and_the_draft_is_unchanged(ui, draft, item):
    before = state(draft)
    response = ui.post(
        f"/drafts/{draft.pk}/save/",
        {"docs": "dX", "dX:yaml": item.payload, "expected_revision": draft.revision},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == (413 if item.too_large else 200)
    body = text(response)
    assert ui_message(item) in body
    assert "Saved revision" not in body
    if not item.too_large:
        assert "Not saved:" in body
    assert state(draft) == before


@pytest.mark.parametrize("item", TEXT_INPUTS, ids=str)
def test_live_validation_reports_it_and_saves_nothing(ui, draft, item):
    before = state(draft)
    response = ui.post(
        f"/drafts/{draft.pk}/validate/",
        {"docs": "dX", "dX:yaml": item.payload},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == (413 if item.too_large else 200)
    assert ui_message(item) in text(response)
    assert state(draft) == before


@pytest.mark.parametrize("item", TEXT_INPUTS, ids=str)
def test_switching_to_the_form_keeps_the_yaml_and_names_the_problem(ui, draft, item):
    before = state(draft)
    response = ui.post(f"/drafts/{draft.pk}/form/", {"yaml": item.payload}, HTTP_HX_REQUEST="true")
    assert response.status_code == (413 if item.too_large else 200)
    assert ui_message(item) in text(response)
    if not item.too_large:
        assert response["HX-Reswap"] == "none"  # the editor keeps the user's text
    assert state(draft) == before


@pytest.mark.parametrize("item", YAML_INPUTS, ids=str)
def test_the_validate_api_answers_a_problem_with_the_reason(api, item):
    response = api.post("/api/v1/validate", item.payload, content_type="application/yaml")
    # A billion-laughs document is refused as too large, the others as unreadable.
    assert response.status_code in ((413,) if item.too_large else (400, 413))
    assert response["Content-Type"] == "application/problem+json"
    assert api_message(item) in response.json()["detail"]


@pytest.mark.parametrize("item", TEXT_INPUTS, ids=str)
def test_saving_it_through_the_api_is_refused_and_the_draft_is_unchanged(api, draft, item):
    before = state(draft)
    body = json.dumps({"yaml": item.payload, "revision": draft.revision})
    response = api.put(f"/api/v1/drafts/{draft.pk}", body, content_type="application/json")
    assert response.status_code in ((413,) if item.too_large else (400, 413))
    assert API_FIELD_MESSAGES.get(item.name, api_message(item)) in response.json()["detail"]
    assert state(draft) == before


def test_the_catalogue_holds_at_least_fifty_inputs():
    from tests.security.hostile import ALL

    assert len(ALL) >= 50
    assert len({item.name for item in ALL}) == len(ALL)
