"""The REST API app."""

from django.apps import AppConfig


class ApiConfig(AppConfig):
    """DRF endpoints under /api/v1/."""

    name = "policyeditor.api"
    label = "api"
