"""App configuration for the policy editor."""

from django.apps import AppConfig


class EditorConfig(AppConfig):
    """Drafts, revisions and the authoring views."""

    name = "policyeditor.editor"
    label = "editor"
    verbose_name = "Policy editor"
