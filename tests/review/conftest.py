"""Fixtures for review tests: a team with one member per role, another team, a draft in the team."""

from __future__ import annotations

import pytest

from policyeditor.editor.services import create_draft, save_draft
from policyeditor.review.models import Membership, Role, Team
from policyeditor.review.workflow import assign_team

POLICY = {
    "apiVersion": "admissionregistration.k8s.io/v1",
    "kind": "ValidatingAdmissionPolicy",
    "metadata": {"name": "replica-limit.example.com"},
    "spec": {
        "failurePolicy": "Fail",
        "matchConstraints": {
            "resourceRules": [
                {
                    "apiGroups": ["apps"],
                    "apiVersions": ["v1"],
                    "operations": ["CREATE", "UPDATE"],
                    "resources": ["deployments"],
                }
            ]
        },
        "validations": [
            {"expression": "object.spec.replicas <= 5", "message": "must be at most 5"}
        ],
    },
}


def policy(limit: int = 5) -> dict:
    """The sample policy with another replica limit."""
    import copy

    doc = copy.deepcopy(POLICY)
    doc["spec"]["validations"][0] = {
        "expression": f"object.spec.replicas <= {limit}",
        "message": f"must be at most {limit}",
    }
    return doc


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    """Review tests create many users; the real hasher's cost is tested elsewhere."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def carol(make_user):
    """A viewer of team-a."""
    return make_user("carol")


@pytest.fixture
def dave(make_user):
    """The admin of team-a."""
    return make_user("dave")


@pytest.fixture
def eve(make_user):
    """An author of another team."""
    return make_user("eve")


@pytest.fixture
def team(alice, bob, carol, dave):
    """team-a: alice author, bob reviewer, carol viewer, dave admin."""
    team = Team.objects.create(name="team-a")
    for user, role in [
        (alice, Role.AUTHOR),
        (bob, Role.REVIEWER),
        (carol, Role.VIEWER),
        (dave, Role.ADMIN),
    ]:
        Membership.objects.create(team=team, user=user, role=role)
    return team


@pytest.fixture
def other_team(eve):
    """team-b, where only eve is (an author)."""
    team = Team.objects.create(name="team-b")
    Membership.objects.create(team=team, user=eve, role=Role.AUTHOR)
    return team


@pytest.fixture
def draft(alice, team):
    """alice's draft of the sample policy, in team-a, one revision."""
    draft = create_draft(alice, [policy(5)], name="replica-limit")
    assign_team(alice, draft, team)
    draft.refresh_from_db()
    return draft


def edit(draft, user, limit: int, note: str = ""):
    """Save the draft as a new revision with another limit."""
    draft.refresh_from_db()
    return save_draft(
        draft, [policy(limit)], expected_revision=draft.revision, author=user, note=note
    )
