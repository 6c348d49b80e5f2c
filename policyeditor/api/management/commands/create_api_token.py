"""`manage.py create_api_token USER [--name NAME]`: issue a token from the shell (prints it once)."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from policyeditor.api.models import ApiToken


class Command(BaseCommand):
    """Print a new personal API token for USER, for scripts and the README's curl examples."""

    help = "Create a personal API token for a user and print it (only its digest is stored)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("username")
        parser.add_argument(
            "--name", default="command line", help="Label shown on the settings page."
        )

    def handle(self, *args, username: str, name: str, **options) -> None:
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"no user named {username!r}")
        _row, plain = ApiToken.issue(user, name)
        self.stdout.write(plain)
