"""Create demo users and drafts once; safe to run on every start (keeps existing data)."""

from __future__ import annotations

import secrets

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction

from policyeditor.editor.models import Draft
from policyeditor.editor.services import create_draft, policy_name
from policyeditor.editor.starters import get_starter

DEMO_USERS = ("alice", "bob")
# (owner, starter slug): the docs' replica-limit VAP with binding and params, and a MAP.
DEMO_DRAFTS = (
    ("alice", "replica-limit"),
    ("alice", "add-default-labels"),
    ("bob", "inject-sidecar"),
)


class Command(BaseCommand):
    """`manage.py seed_demo`: demo users with random passwords and a few demo drafts."""

    help = "Create the demo users alice and bob and a few demo drafts (idempotent)."

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
        for owner, slug in DEMO_DRAFTS:
            starter = get_starter(slug)
            if starter is None:
                continue
            documents = starter.documents()
            name = policy_name(documents, starter.kind)
            if Draft.objects.filter(owner=users[owner], name=name).exists():
                continue  # seeded on an earlier start: the user's edits stay untouched
            create_draft(users[owner], documents, note="Demo draft", description=starter.summary)
            self.stdout.write(f"created demo draft {name} for {owner}")
