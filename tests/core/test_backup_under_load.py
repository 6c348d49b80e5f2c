"""Backups taken while others write restore cleanly, and a file that would not restore is refused."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from policyeditor.core import backup
from tests.core.test_backup import instance  # noqa: F401 - the fixture
from tests.test_settings import ROOT, run_manage

# Creates drafts with two revisions each (foreign keys drafts <- revisions), as fast as it can,
# until the stop file appears or 60 s have passed.
WRITER = """
import time
from pathlib import Path
from django.contrib.auth import get_user_model
from policyeditor.editor.services import create_draft, save_draft
from policyeditor.editor.starters import get_starter

stop = Path({stop!r})
documents = get_starter("replica-limit").documents()
deadline = time.monotonic() + 60
number = 0
user = get_user_model().objects.create_user("writer", password="x")
while not stop.exists() and time.monotonic() < deadline:
    number += 1
    if number == 200:
        Path({started!r}).touch()  # enough rows that reading a table takes a while
    draft = create_draft(user, documents)
    renamed = [dict(doc) for doc in draft.documents]
    renamed[0] = {{**renamed[0], "metadata": {{"name": f"p{{number}}.example.com"}}}}
    save_draft(draft, renamed, expected_revision=1, author=user, note="second")
"""


def _env(data_dir: Path) -> dict[str, str]:
    # The writer stores drafts as fast as it can for a while: no storage quota for this load.
    quotas = {f"POLICYEDITOR_QUOTA_USER_{what}": "0" for what in ("DRAFTS", "REVISIONS", "BYTES")}
    return {"DEBUG": "1", "POLICYEDITOR_DATA_DIR": str(data_dir), **quotas}


def test_backups_taken_under_concurrent_writes_all_restore(tmp_path):
    live = tmp_path / "live"
    live.mkdir()
    migrated = run_manage("migrate", "--noinput", env=_env(live))
    assert migrated.returncode == 0, migrated.stderr
    empty = tmp_path / "empty.sqlite3"
    shutil.copy(live / "db.sqlite3", empty)
    stop, started = tmp_path / "stop", tmp_path / "started"
    script = WRITER.format(stop=str(stop), started=str(started))
    writer = subprocess.Popen(
        [sys.executable, "manage.py", "shell", "-c", script],
        cwd=ROOT,
        env={**_clean_environ(), **_env(live)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        _wait_for(started, writer)
        files = []
        for attempt in range(3):
            time.sleep(0.3)  # rows pile up between backups, so each reads a different state
            path = tmp_path / f"backup-{attempt}.json"
            taken = run_manage("backup", "-o", str(path), env=_env(live))
            assert taken.returncode == 0, taken.stderr
            files.append(path)
    finally:
        stop.touch()
        _, errors = writer.communicate(timeout=120)
    assert writer.returncode == 0, errors
    restored_revisions = []
    for path in files:
        fresh = tmp_path / f"fresh-{path.stem}"
        fresh.mkdir()
        shutil.copy(empty, fresh / "db.sqlite3")
        result = run_manage("restore", str(path), env=_env(fresh))
        assert result.returncode == 0, f"{path.name}: {result.stderr}"
        data = json.loads(path.read_text(encoding="utf-8"))
        restored_revisions.append(data["counts"].get("editor.revision", 0))
    # The writer really wrote while the backups were taken: each backup saw more revisions.
    assert restored_revisions == sorted(restored_revisions)
    assert restored_revisions[-1] > restored_revisions[0]


def _clean_environ() -> dict[str, str]:
    import os

    drop = {"DEBUG", "SECRET_KEY", "DATABASE_URL", "CONN_MAX_AGE", "DJANGO_ALLOW_ASYNC_UNSAFE"}
    return {k: v for k, v in os.environ.items() if k not in drop}


def _wait_for(flag: Path, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + 60
    while not flag.exists():
        if process.poll() is not None or time.monotonic() > deadline:
            raise AssertionError(f"the writer did not start: {process.communicate()[1]}")
        time.sleep(0.05)


@pytest.mark.django_db
def test_a_backup_whose_rows_point_at_missing_rows_is_refused(instance):  # noqa: F811
    data = backup.collect()
    data["objects"] = [o for o in data["objects"] if o["model"] != "editor.draft"]
    data["counts"]["editor.draft"] = 0
    with pytest.raises(backup.BackupError, match="editor.draft .* which the backup does not hold"):
        backup.verify(data)


@pytest.mark.django_db
def test_a_backup_whose_counts_disagree_with_its_rows_is_refused(instance):  # noqa: F811
    data = backup.collect()
    data["counts"]["editor.revision"] += 1
    with pytest.raises(backup.BackupError, match="the counts do not match the rows"):
        backup.verify(data)


@pytest.mark.django_db
def test_a_complete_backup_verifies(instance):  # noqa: F811
    backup.verify(backup.parse(backup.dumps(backup.collect())))
