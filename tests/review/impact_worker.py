"""Running queued tasks in the test's process, as `manage.py db_worker --batch` would."""

from __future__ import annotations

from unittest import mock

from django.core.management import call_command
from django_tasks_db.management.commands import db_worker
from django_tasks_db.models import DBTaskResult


def work() -> None:
    """Run every queued task, then stop; a task that raised fails the test with its traceback."""
    # The worker closes connections it thinks stale, which inside a test's transaction is every one.
    with mock.patch.object(db_worker, "close_old_connections", lambda: None):
        call_command("db_worker", batch=True, no_startup_delay=True, verbosity=0)
    failed = list(DBTaskResult.objects.failed().values_list("traceback", flat=True))
    assert failed == [], failed[0]
