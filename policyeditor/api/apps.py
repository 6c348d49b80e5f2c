"""The REST API app."""

from django.apps import AppConfig


class ApiConfig(AppConfig):
    """DRF endpoints under /api/v1/."""

    name = "policyeditor.api"
    label = "api"

    def ready(self) -> None:
        from django.contrib.auth import get_user_model
        from django.db.models.signals import pre_save

        from policyeditor.api.signals import revoke_tokens_on_password_change

        pre_save.connect(
            revoke_tokens_on_password_change,
            sender=get_user_model(),
            dispatch_uid="api-revoke-tokens-on-password-change",
        )
