"""The core app: layout, login, health check and shared web helpers."""

from django.apps import AppConfig
from django.core import checks


class CoreConfig(AppConfig):
    """Shared web pieces that belong to no single feature."""

    name = "policyeditor.core"
    label = "core"

    def ready(self) -> None:
        # Fail closed at start-up: a broken engine install stops `check`, `runserver`, `migrate`.
        from policyeditor.core.checks import engine_parts

        checks.register(engine_parts, "policyeditor")

        from django.contrib.auth.signals import user_login_failed

        from policyeditor.core.throttling import count_address_failure

        user_login_failed.connect(count_address_failure, dispatch_uid="core-address-failures")
