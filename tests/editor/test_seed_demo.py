"""Tests for the seed_demo management command."""

from __future__ import annotations

from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from policyeditor.editor.models import Draft, Kind

pytestmark = pytest.mark.django_db


def _seed() -> str:
    out = StringIO()
    call_command("seed_demo", stdout=out)
    return out.getvalue()


def test_seed_demo_creates_users_with_a_printed_password_that_works():
    output = _seed()
    line = next(line for line in output.splitlines() if "demo user alice" in line)
    password = line.rsplit(" ", 1)[-1]
    alice = get_user_model().objects.get(username="alice")
    assert alice.check_password(password)
    assert get_user_model().objects.filter(username="bob").exists()


def test_seed_demo_creates_the_replica_limit_vap_with_binding_and_params_and_a_map():
    _seed()
    vap = Draft.objects.get(name="demo-policy.example.com")
    kinds = [doc["kind"] for doc in vap.documents]
    assert kinds == [
        "ValidatingAdmissionPolicy",
        "ValidatingAdmissionPolicyBinding",
        "ReplicaLimit",
    ]
    assert Draft.objects.filter(kind=Kind.MAP).exists()


def test_seed_demo_run_twice_keeps_existing_data_and_prints_no_password():
    _seed()
    alice = get_user_model().objects.get(username="alice")
    alice.set_password("kept-password")
    alice.save()
    draft = Draft.objects.get(name="demo-policy.example.com")
    Draft.objects.filter(pk=draft.pk).update(description="edited by alice")
    count = Draft.objects.count()
    output = _seed()
    assert "password" not in output
    assert Draft.objects.count() == count
    assert Draft.objects.get(pk=draft.pk).description == "edited by alice"
    alice.refresh_from_db()
    assert alice.check_password("kept-password")


def test_seed_demo_puts_the_demo_drafts_in_the_platform_team_with_alice_author_and_bob_reviewer():
    from policyeditor.review import permissions
    from policyeditor.teams.models import Membership, Team

    _seed()
    team = Team.objects.get(name="platform")
    roles = dict(Membership.objects.filter(team=team).values_list("user__username", "role"))
    assert roles == {"alice": "author", "bob": "reviewer"}
    drafts = Draft.objects.all()
    assert drafts and all(permissions.team_of(d) == team for d in drafts)
    alice = get_user_model().objects.get(username="alice")
    bob = get_user_model().objects.get(username="bob")
    vap = Draft.objects.get(name="demo-policy.example.com")
    assert permissions.can_edit(alice, vap) and permissions.can_review(bob, vap)


def test_seed_demo_twice_keeps_one_team_and_a_changed_role():
    from policyeditor.teams.models import Membership, Team

    _seed()
    Membership.objects.filter(user__username="bob").update(role="admin")
    output = _seed()
    assert Team.objects.filter(name="platform").count() == 1
    assert Membership.objects.get(user__username="bob").role == "admin"
    assert "team" not in output
