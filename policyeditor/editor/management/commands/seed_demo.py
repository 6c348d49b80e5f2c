"""Create demo users and drafts once; safe to run on every start (keeps existing data)."""

from __future__ import annotations

import secrets

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction

from policyeditor.editor import extensions
from policyeditor.editor.models import Draft
from policyeditor.editor.services import create_draft, policy_name
from policyeditor.editor.starters import get_starter
from policyeditor.teams.models import Membership, Team

DEMO_USERS = ("alice", "bob")
# The demo team owning the demo drafts, so the review workflow is visible right after `make run`.
DEMO_TEAM = "platform"
DEMO_ROLES = (("alice", "author"), ("bob", "reviewer"))
# (owner, starter slug): the docs' replica-limit VAP with binding and params, and a MAP.
DEMO_DRAFTS = (
    ("alice", "replica-limit"),
    ("alice", "add-default-labels"),
    ("bob", "inject-sidecar"),
)


class Command(BaseCommand):
    """`manage.py seed_demo`: demo users with random passwords, the platform team, demo drafts."""

    help = "Create the demo users alice and bob, their team and a few demo drafts (idempotent)."

    @transaction.atomic
    def handle(self, *args, **options) -> None:
        users = {}
        model = get_user_model()
        for username in DEMO_USERS:
            user, created = model.objects.get_or_create(username=username)
            if created:
                # A fresh random password, shown once: nothing secret lives in the repository.
                password = secrets.token_urlsafe(12)
                user.set_password(password)
                user.save(update_fields=["password"])
                self.stdout.write(f"created demo user {username} with password {password}")
            users[username] = user
        team = self._demo_team(users)
        for owner, slug in DEMO_DRAFTS:
            starter = get_starter(slug)
            if starter is None:
                continue
            documents = starter.documents()
            name = policy_name(documents, starter.kind)
            draft = Draft.objects.filter(owner=users[owner], name=name).first()
            if draft is None:
                draft = create_draft(
                    users[owner], documents, note="Demo draft", description=starter.summary
                )
                self.stdout.write(f"created demo draft {name} for {owner}")
            # Drafts seeded on an earlier start keep their edits; they only join the team once.
            self._join_team(draft, team)

    def _demo_team(self, users: dict):
        """The demo team with its members, or None when no app puts drafts in teams (review)."""
        if extensions.review() is None:
            return None
        team, created = Team.objects.get_or_create(name=DEMO_TEAM)
        if created:
            self.stdout.write(f"created demo team {DEMO_TEAM}")
        for username, role in DEMO_ROLES:
            # get_or_create, not update: a role changed by a team admin stays changed.
            Membership.objects.get_or_create(
                team=team, user=users[username], defaults={"role": role}
            )
        return team

    def _join_team(self, draft: Draft, team) -> None:
        """Put a demo draft in the demo team unless it already belongs to a team."""
        hooks = extensions.review()
        if team is None or hooks is None:
            return
        if hooks.join_team(draft, team):
            self.stdout.write(f"demo draft {draft.name} belongs to team {team.name}")
