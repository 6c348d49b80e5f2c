"""App configuration for teams and their members."""

from django.apps import AppConfig


class TeamsConfig(AppConfig):
    """Teams, memberships and roles: who works together on drafts."""

    name = "policyeditor.teams"
    label = "teams"
    verbose_name = "Teams"
