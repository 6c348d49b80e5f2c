"""Fixtures for the editor tests: drafts made from the gallery starters."""

from __future__ import annotations

import pytest

from policyeditor.editor.services import create_draft
from policyeditor.editor.starters import get_starter


@pytest.fixture
def replica_draft(alice):
    """Alice's replica-limit VAP with its binding and param object."""
    return create_draft(alice, get_starter("replica-limit").documents())


@pytest.fixture
def map_draft(alice):
    """Alice's add-default-labels MAP."""
    return create_draft(alice, get_starter("add-default-labels").documents())


@pytest.fixture
def htmx_headers():
    """The headers htmx sends with every request."""
    return {"HX-Request": "true"}


@pytest.fixture
def bob_viewer(bob, replica_draft):
    """bob, a viewer in the team that owns alice's replica-limit draft (needs the review app)."""
    from policyeditor.editor import extensions

    if extensions.access() is None:
        pytest.skip("team roles come from the review app")
    from policyeditor.review.models import DraftWorkflow
    from policyeditor.teams.models import Membership, Team

    team = Team.objects.create(name="platform")
    Membership.objects.create(team=team, user=replica_draft.owner, role="admin")
    Membership.objects.create(team=team, user=bob, role="viewer")
    DraftWorkflow.objects.create(draft=replica_draft, team=team)
    return bob
