"""URLs of the authoring UI (namespace `editor`)."""

from django.urls import path

from policyeditor.editor.views import (
    autosave,
    cases,
    completion,
    crds,
    drafts,
    editing,
    export,
    trying,
)

app_name = "editor"

urlpatterns = [
    path("drafts/", drafts.draft_list, name="draft_list"),
    path("drafts/new/", drafts.draft_new, name="draft_new"),
    path("drafts/import/", drafts.draft_import, name="draft_import"),
    path("drafts/templates/<slug:slug>/", drafts.draft_from_starter, name="draft_from_starter"),
    path("drafts/row/", editing.draft_row, name="row"),
    path("drafts/complete/", completion.cel_complete, name="cel_complete"),
    path("drafts/yaml-help/", completion.yaml_help, name="yaml_help"),
    path("drafts/<int:pk>/", editing.draft_edit, name="draft_edit"),
    path("drafts/<int:pk>/validate/", editing.draft_validate, name="draft_validate"),
    path("drafts/<int:pk>/form/", editing.draft_form, name="draft_form"),
    path("drafts/<int:pk>/documents/", editing.draft_add_document, name="draft_add_document"),
    path("drafts/<int:pk>/save/", editing.draft_save, name="draft_save"),
    path("drafts/<int:pk>/autosave/", autosave.draft_autosave, name="draft_autosave"),
    path(
        "drafts/<int:pk>/autosave/discard/",
        autosave.draft_autosave_discard,
        name="draft_autosave_discard",
    ),
    path("drafts/<int:pk>/try/", trying.draft_try, name="draft_try"),
    path("drafts/<int:pk>/crds/", crds.draft_crds, name="draft_crds"),
    path("drafts/<int:pk>/tests/", cases.draft_tests, name="draft_tests"),
    path("drafts/<int:pk>/tests/save/", cases.draft_test_save, name="draft_test_save"),
    path("drafts/<int:pk>/export.yaml", export.draft_export, name="draft_export"),
    path(
        "drafts/<int:pk>/export-static.zip", export.draft_export_static, name="draft_export_static"
    ),
]
