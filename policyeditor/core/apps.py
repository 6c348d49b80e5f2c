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
