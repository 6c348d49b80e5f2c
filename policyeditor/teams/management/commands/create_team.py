"""`manage.py create_team NAME --member USER:ROLE ...`: create a team (or update it) and add users."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from policyeditor.teams.models import Membership, Role, Team


class Command(BaseCommand):
    """Create a team and add existing users with their roles."""

    help = "Create a team (or update it) and add users: --member alice:author --member bob:reviewer"

    def add_arguments(self, parser) -> None:
        parser.add_argument("name", help="the team's name")
        parser.add_argument(
            "--member",
            action="append",
            default=[],
            metavar="USER:ROLE",
            help=f"add a user with a role ({', '.join(Role.values)}); repeatable",
        )
        parser.add_argument(
            "--required-approvals", type=int, default=None, help="approvals a review needs"
        )
        parser.add_argument("--description", default=None)

    def handle(self, *args, name: str, member: list[str], **options) -> None:
        name = name.strip()
        if not name:
            raise CommandError("the team name must not be empty")
        members = [self._parse(item) for item in member]
        required = options.get("required_approvals")
        if required is not None and required < 1:
            raise CommandError("--required-approvals must be at least 1")
        team, created = Team.objects.get_or_create(name=name)
        if required is not None:
            team.required_approvals = required
        if options.get("description") is not None:
            team.description = options["description"]
        team.save()
        for user, role in members:
            Membership.objects.update_or_create(team=team, user=user, defaults={"role": role})
        verb = "Created" if created else "Updated"
        self.stdout.write(f"{verb} team {team.name} with {team.memberships.count()} member(s)")

    def _parse(self, item: str):
        username, sep, role = item.rpartition(":")
        if not sep or not username:
            raise CommandError(f"--member {item!r}: expected USER:ROLE")
        role = role.strip().lower()
        if role not in Role.values:
            raise CommandError(f"--member {item!r}: role must be one of {', '.join(Role.values)}")
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"--member {item!r}: no user named {username!r}")
        return user, role
