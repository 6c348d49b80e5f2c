"""The core app: layout, login, health check and shared web helpers."""

from django.apps import AppConfig


class CoreConfig(AppConfig):
    """Shared web pieces that belong to no single feature."""

    name = "policyeditor.core"
    label = "core"
