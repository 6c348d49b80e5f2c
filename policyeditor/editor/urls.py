"""URLs of the authoring UI (namespace `editor`)."""

from django.urls import path

from policyeditor.editor.views import drafts

app_name = "editor"

urlpatterns = [
    path("drafts/", drafts.draft_list, name="draft_list"),
    path("drafts/<int:pk>/", drafts.draft_edit, name="draft_edit"),
]
