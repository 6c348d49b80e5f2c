"""A throwaway Django setup for the web benchmarks: its own SQLite file, migrated once."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import time

_STATE: dict = {}


def setup() -> None:
    """Point Django at a fresh SQLite database in a temporary directory and migrate it (once)."""
    if _STATE:
        return
    directory = tempfile.mkdtemp(prefix="policyeditor-bench-")
    atexit.register(shutil.rmtree, directory, ignore_errors=True)
    # Set before the settings module is imported: settings read these at import time.
    os.environ["POLICYEDITOR_DATA_DIR"] = directory
    os.environ["DATABASE_URL"] = f"sqlite:///{directory}/bench.sqlite3"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "policyeditor.settings")
    os.environ.setdefault("DEBUG", "1")
    import django
    from django.conf import settings

    django.setup()
    # The benchmarks measure the app, not log output or password hashing.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)
    _STATE["directory"] = directory


def client_for(username: str):
    """A Django test client signed in as a (new or existing) user."""
    from django.contrib.auth import get_user_model
    from django.test import Client

    user, _ = get_user_model().objects.get_or_create(username=username)
    client = Client(HTTP_HOST="localhost")
    client.force_login(user)
    return client, user


class QueryCounter:
    """Counts the SQL statements run inside a `with connection.execute_wrapper(counter)` block."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, execute, sql, params, many, context):
        self.count += 1
        return execute(sql, params, many, context)


def count_queries(fn) -> int:
    """The number of SQL statements fn() runs (robust against per-request query log resets)."""
    from django.db import connection

    counter = QueryCounter()
    with connection.execute_wrapper(counter):
        fn()
    return counter.count


def timed_get(client, url: str) -> float:
    """Seconds for one GET of `url` through the test client (which must answer 200)."""
    start = time.perf_counter()
    response = client.get(url)
    elapsed = time.perf_counter() - start
    assert response.status_code == 200, (url, response.status_code)
    return elapsed
