"""Running queued tasks in the test's process, as `manage.py db_worker --batch` would, or in workers."""

from __future__ import annotations

import signal
from unittest import mock
from urllib.parse import quote

from django.core.management import call_command
from django.db import connection
from django_tasks_db.management.commands import db_worker
from django_tasks_db.models import DBTaskResult


def work() -> None:
    """Run every queued task, then stop; a task that raised fails the test with its traceback."""
    # The worker closes connections it thinks stale, which inside a test's transaction is every one.
    # It also installs SIGINT/SIGTERM handlers that exit: put the process's own back afterwards, or
    # a later test's Ctrl-C in this process would end in SystemExit.
    handlers = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        with mock.patch.object(db_worker, "close_old_connections", lambda: None):
            call_command("db_worker", batch=True, no_startup_delay=True, verbosity=0)
    finally:
        for sig, handler in handlers.items():
            signal.signal(sig, handler)
    failed = list(DBTaskResult.objects.failed().values_list("traceback", flat=True))
    assert failed == [], failed[0]


def test_database_url() -> str:
    """The URL of the test database this test writes to, for worker subprocesses."""
    settings_dict = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{settings_dict['NAME']}"
    user = quote(settings_dict.get("USER") or "", safe="")
    password = quote(settings_dict.get("PASSWORD") or "", safe="")
    auth = f"{user}:{password}@" if password else f"{user}@" if user else ""
    host = quote(settings_dict.get("HOST") or "", safe="")
    port = f":{settings_dict['PORT']}" if settings_dict.get("PORT") else ""
    return f"postgres://{auth}{host}{port}/{settings_dict['NAME']}"


test_database_url.__test__ = False  # a helper, not a test, although its name starts with test
