"""Fixtures for review tests: the teams tests' teams, and a draft in team-a."""

from __future__ import annotations

import pytest

from policyeditor.editor.services import create_draft, save_draft
from policyeditor.review.workflow import assign_team

# The team fixtures are the teams tests' (team-a with one member per role, team-b).
from tests.teams.conftest import (  # noqa: F401
    carol,
    dave,
    eve,
    fast_password_hashing,
    other_team,
    team,
)

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


@pytest.fixture
def draft(alice, team):  # noqa: F811 (team is the fixture imported above)
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
