"""The editor keeps imported YAML as written: form saves change one line, no-op saves store nothing."""

from __future__ import annotations

import pytest
from django.urls import reverse

from policyeditor.editor.models import Draft
from tests.editor.formhtml import form_data, postable
from tests.sources import REPLICA_LIMIT_YAML as SOURCE
from tests.sources import changed_lines

pytestmark = pytest.mark.django_db


@pytest.fixture
def imported(alice_client) -> Draft:
    response = alice_client.post(
        reverse("editor:draft_import"), {"yaml": SOURCE, "kubernetes_version": "1.37"}
    )
    assert response.status_code == 302
    return Draft.objects.latest("pk")


def exported(client, draft: Draft, **params) -> str:
    response = client.get(reverse("editor:draft_export", args=[draft.pk]), params)
    assert response.status_code == 200
    return response.content.decode()


def test_an_imported_file_that_is_not_edited_exports_byte_identical(alice_client, imported):
    assert imported.source == SOURCE
    assert exported(alice_client, imported) == SOURCE
    page = alice_client.get(imported.get_absolute_url()).content.decode()
    assert "# Replica limit, as kept in Git." in page  # the YAML pane shows it as written


def test_a_one_field_form_edit_changes_exactly_one_line_of_the_export(
    alice_client, imported, htmx_headers
):
    data = form_data(alice_client.get(imported.get_absolute_url()).content.decode())
    field = next(
        k
        for k in data
        if k.endswith(".spec.validations.0.message")
        or (".spec.validations." in k and k.endswith(".message"))
    )
    data[field] = "at most five replicas"
    response = alice_client.post(
        reverse("editor:draft_save", args=[imported.pk]), postable(data), headers=htmx_headers
    )
    assert b"Saved revision 2" in response.content
    assert changed_lines(SOURCE, exported(alice_client, imported)) == [
        "-    message: at most 5 replicas",
        "+    message: at most five replicas",
    ]
    # The revision before stays exportable as it was written.
    assert exported(alice_client, imported, revision="1") == SOURCE


def test_a_part_export_cuts_the_other_documents_out_of_the_text(alice_client, imported):
    assert exported(alice_client, imported, part="policy") == SOURCE.split("---\n")[0]


def test_saving_from_the_yaml_editor_keeps_its_text_as_written(
    alice_client, imported, htmx_headers
):
    data = form_data(alice_client.get(imported.get_absolute_url()).content.decode())
    text = SOURCE.replace("# cluster-scoped", "# cluster-scoped: no namespace")
    data["yaml"] = text
    response = alice_client.post(
        reverse("editor:draft_save", args=[imported.pk]), postable(data), headers=htmx_headers
    )
    assert b"Saved revision 2" in response.content
    assert exported(alice_client, imported) == text


def test_a_save_without_a_change_is_a_no_op_that_says_so(alice_client, imported, htmx_headers):
    data = form_data(alice_client.get(imported.get_absolute_url()).content.decode())
    data["note"] = "nothing really"
    response = alice_client.post(
        reverse("editor:draft_save", args=[imported.pk]), postable(data), headers=htmx_headers
    )
    assert b"No changes to save" in response.content
    assert "HX-Trigger" not in response
    assert Draft.objects.get(pk=imported.pk).revisions.count() == 1


def test_a_save_clears_the_note_and_refreshes_the_export_menu_out_of_band(
    alice_client, imported, htmx_headers
):
    data = form_data(alice_client.get(imported.get_absolute_url()).content.decode())
    field = next(k for k in data if ".spec.validations." in k and k.endswith(".message"))
    data[field] = "five at most"
    data["note"] = "reworded"
    html = alice_client.post(
        reverse("editor:draft_save", args=[imported.pk]), postable(data), headers=htmx_headers
    ).content.decode()
    assert 'id="revision-note"' in html and 'value=""' in html
    menu = html[html.index('id="export-menu"') - 40 :]
    assert 'hx-swap-oob="true"' in menu[:120]
    assert "export the last saved revision (r2)" in menu
    status = html[html.index('id="review-status"') :]
    assert status.index('hx-swap-oob="true"') < status.index(">")  # the review badge too
    assert Draft.objects.get(pk=imported.pk).revisions.get(number=2).note == "reworded"
