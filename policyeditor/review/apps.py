"""App configuration for team review of drafts."""

from django.apps import AppConfig


class ReviewConfig(AppConfig):
    """Teams, roles, the review workflow, comments, audit log and share links."""

    name = "policyeditor.review"
    label = "review"
    verbose_name = "Team review"

    def ready(self) -> None:
        # Signals record edits made through the editor's services in the audit log.
        from policyeditor.editor import extensions
        from policyeditor.review import signals  # noqa: F401
        from policyeditor.review.editor_hooks import EXTENSION

        # The editor shows team access, review state and saved test cases through these hooks.
        extensions.register(EXTENSION)
