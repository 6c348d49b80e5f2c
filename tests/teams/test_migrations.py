"""Teams moved out of the review app without moving a row: an existing database migrates cleanly."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("review", "0004_alter_savedtestcase_case"), ("teams", None)]


def _migrate(targets) -> object:
    """Migrate to `targets`; the models as they are then."""
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    executor.loader.build_graph()
    nodes = [target for target in targets if target[1] is not None]
    return executor.loader.project_state(nodes).apps


def _latest() -> list[tuple[str, str]]:
    executor = MigrationExecutor(connection)
    return executor.loader.graph.leaf_nodes()


@pytest.mark.django_db(transaction=True)
def test_teams_made_by_the_review_app_are_the_teams_apps_after_migrating():
    old = _migrate(BEFORE)
    user = old.get_model("auth", "User").objects.create(username="alice")
    team = old.get_model("review", "Team").objects.create(name="platform", required_approvals=2)
    old.get_model("review", "Membership").objects.create(team=team, user=user, role="admin")
    draft = old.get_model("editor", "Draft").objects.create(
        name="replica-limit", owner=user, documents=[]
    )
    old.get_model("review", "DraftWorkflow").objects.create(draft=draft, team=team)
    try:
        new = _migrate(_latest())
        moved = new.get_model("teams", "Team").objects.get(pk=team.pk)
        assert (moved.name, moved.required_approvals) == ("platform", 2)
        membership = new.get_model("teams", "Membership").objects.get(team=moved)
        assert (membership.user_id, membership.role) == (user.pk, "admin")
        workflow = new.get_model("review", "DraftWorkflow").objects.get(draft_id=draft.pk)
        assert workflow.team_id == moved.pk
        content_type = new.get_model("contenttypes", "ContentType").objects
        assert not content_type.filter(app_label="review", model__in=["team", "membership"])
    finally:
        _migrate(_latest())
