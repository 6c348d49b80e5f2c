"""`manage.py backup` and `restore`: every row comes back, restores are all or nothing."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime

import pytest
from django.contrib.auth import authenticate
from django.core.management import CommandError, call_command

from policyeditor.api.models import ApiToken
from policyeditor.core import backup
from policyeditor.editor.models import Draft, Revision
from policyeditor.editor.services import create_draft, save_draft
from policyeditor.editor.starters import get_starter
from policyeditor.review import workflow
from policyeditor.review.comments import add_comment
from policyeditor.review.models import AuditEvent, Comment, Review
from policyeditor.teams.models import Membership, Role
from tests.conftest import PASSWORD, team_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def instance(alice, bob):
    """A small but complete instance: a team, a reviewed draft with two revisions, a token."""
    team = team_of("platform", [(alice, Role.AUTHOR), (bob, Role.REVIEWER)])
    draft = create_draft(alice, get_starter("replica-limit").documents())
    workflow.assign_team(alice, draft, team)
    draft.refresh_from_db()
    changed = [dict(doc) for doc in draft.documents]
    changed[0] = {**changed[0], "metadata": {"name": "renamed.example.com"}}
    draft = save_draft(draft, changed, expected_revision=1, author=alice, note="rename <b>")
    workflow.request_review(alice, draft)
    revision = draft.revisions.get(number=2)
    add_comment(bob, draft, revision, "looks fine, @alice")
    workflow.approve(bob, draft, revision_number=2, body="ok")
    token = ApiToken.issue(alice, "ci")[1]
    return {"draft": draft, "token": token}


def snapshot() -> list[dict]:
    """Every backed-up row, as the backup writes it."""
    return json.loads(backup.dumps(backup.collect()))["objects"]


def run_backup(tmp_path) -> str:
    path = tmp_path / "backup.json"
    call_command("backup", "-o", str(path), stderr=io.StringIO())
    return str(path)


def read(path: str) -> str:
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def test_the_backup_holds_every_kind_of_row(instance, tmp_path):
    data = json.loads(read(run_backup(tmp_path)))
    assert data["format"] == "policyeditor-backup" and data["version"] == 1
    counts = data["counts"]
    for name in ["auth.user", "editor.draft", "editor.revision", "teams.team", "review.review"]:
        assert counts[name] >= 1, name
    assert counts["editor.revision"] == 2
    assert counts["api.apitoken"] == 1
    assert "sessions.session" not in counts and "axes.accessattempt" not in counts


def test_a_backup_from_before_teams_had_their_own_app_restores_its_teams(instance, tmp_path):
    before = snapshot()
    data = json.loads(read(run_backup(tmp_path)))
    # Teams were review.team and review.membership then; the rows are the same.
    for item in data["objects"]:
        if item["model"] in ("teams.team", "teams.membership"):
            item["model"] = "review." + item["model"].split(".")[1]
    old = tmp_path / "old.json"
    old.write_text(json.dumps(data), encoding="utf-8")
    Membership.objects.all().delete()
    call_command("restore", str(old), "--replace", stderr=io.StringIO())
    assert snapshot() == before
    assert Membership.objects.count() == 2


def test_the_token_is_backed_up_hashed_not_in_clear(instance, tmp_path):
    text = read(run_backup(tmp_path))
    assert instance["token"] not in text


def test_restore_replace_brings_back_exactly_the_backed_up_rows(instance, tmp_path, make_user):
    before = snapshot()
    path = run_backup(tmp_path)
    # Changes made after the backup: all of them must be gone after the restore.
    draft = instance["draft"]
    save_draft(draft, [], expected_revision=2, author=draft.owner, note="emptied")
    make_user("mallory")
    Draft.objects.filter(pk=draft.pk).update(name="changed")
    call_command("restore", path, "--replace", stderr=io.StringIO())
    assert snapshot() == before


def test_restored_users_sign_in_and_restored_tokens_authenticate(instance, tmp_path, rf):
    path = run_backup(tmp_path)
    call_command("restore", path, "--replace", stderr=io.StringIO())
    assert authenticate(rf.post("/login/"), username="alice", password=PASSWORD) is not None
    row = ApiToken.objects.matching(instance["token"]).first()
    assert row is not None and row.user.username == "alice"


def test_restored_revisions_are_still_immutable(instance, tmp_path):
    path = run_backup(tmp_path)
    call_command("restore", path, "--replace", stderr=io.StringIO())
    revision = Revision.objects.get(draft=instance["draft"], number=1)
    with pytest.raises(ValueError, match="immutable"):
        revision.save()


def test_a_restore_writes_no_audit_events_of_its_own(instance, tmp_path):
    events = AuditEvent.objects.count()
    path = run_backup(tmp_path)
    call_command("restore", path, "--replace", stderr=io.StringIO())
    assert AuditEvent.objects.count() == events


def test_new_rows_after_a_restore_get_fresh_ids(instance, tmp_path, alice):
    path = run_backup(tmp_path)
    call_command("restore", path, "--replace", stderr=io.StringIO())
    fresh = create_draft(alice, get_starter("deny-privileged").documents())
    assert fresh.pk > instance["draft"].pk


def test_restoring_into_a_fresh_database_needs_no_replace(instance, tmp_path):
    before = snapshot()
    path = run_backup(tmp_path)
    backup._empty(backup.sorted_models(), "default")
    assert backup.existing_rows() == {}
    call_command("restore", path, stderr=io.StringIO())
    assert snapshot() == before


def test_timestamps_come_back_to_the_microsecond(instance, tmp_path):
    # 412 us: Django's own JSON encoder would write ".000" and the restore would read back 0 us.
    stamp = datetime(2026, 12, 2, 12, 50, 15, 412, tzinfo=UTC)
    ApiToken.objects.update(created=stamp)
    path = run_backup(tmp_path)
    assert '"2026-12-02T12:50:15.000412Z"' in read(path)
    ApiToken.objects.update(created=datetime(2020, 1, 1, tzinfo=UTC))
    call_command("restore", path, "--replace", stderr=io.StringIO())
    assert ApiToken.objects.get().created == stamp


def test_restore_refuses_a_database_with_data_without_replace(instance, tmp_path):
    before = snapshot()
    path = run_backup(tmp_path)
    with pytest.raises(CommandError, match="already holds data .*restore --replace"):
        call_command("restore", path, stderr=io.StringIO())
    assert snapshot() == before


@pytest.mark.parametrize(
    "content, message",
    [
        ("{not json", "not valid JSON"),
        ('{"format": "something-else", "version": 1, "objects": []}', '"format" is not'),
        ('{"format": "policyeditor-backup", "version": 9, "objects": []}', "unsupported backup"),
        ('{"format": "policyeditor-backup", "version": 1, "objects": {}}', '"objects" is not'),
        (
            '{"format": "policyeditor-backup", "version": 1, "objects": [{"model": "x.y"}]}',
            "'x.y' is not a model",
        ),
    ],
)
def test_an_unusable_file_is_refused_with_its_reason(instance, tmp_path, content, message):
    before = snapshot()
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(CommandError, match=message):
        call_command("restore", str(path), "--replace", stderr=io.StringIO())
    assert snapshot() == before


def test_a_backup_failing_half_way_rolls_the_whole_restore_back(instance, tmp_path):
    before = snapshot()
    data = json.loads(read(run_backup(tmp_path)))
    # The last revision points at a draft that does not exist: the load fails at the very end.
    revision = next(o for o in reversed(data["objects"]) if o["model"] == "editor.revision")
    revision["fields"]["draft"] = 999_999
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(data))
    with pytest.raises(CommandError, match="nothing was changed"):
        call_command("restore", str(broken), "--replace", stderr=io.StringIO())
    assert snapshot() == before
    assert Comment.objects.count() == 1 and Review.objects.count() == 1


def test_a_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(CommandError, match="cannot read"):
        call_command("restore", str(tmp_path / "nope.json"))


def test_backup_without_output_writes_json_to_stdout(instance):
    out = io.StringIO()
    call_command("backup", stdout=out)
    assert json.loads(out.getvalue())["counts"]["editor.draft"] == 1


def test_a_failed_write_leaves_no_partial_file(instance, tmp_path, monkeypatch):
    target = tmp_path / "backup.json"
    target.write_text("old backup")

    def explode(_data):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(backup, "dumps", explode)
    with pytest.raises(CommandError, match="No space left"):
        call_command("backup", "-o", str(target), stderr=io.StringIO())
    assert target.read_text() == "old backup"
    assert [p.name for p in tmp_path.iterdir()] == ["backup.json"]
