"""The settings module: env-driven, strict in production."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

PRODUCTION_ENV = {
    "DEBUG": "0",
    "SECRET_KEY": "x" * 20 + "production-secret-value-for-check-deploy-0123456789",
    "ALLOWED_HOSTS": "policies.example.com",
}


def run_manage(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    """Run manage.py in a clean environment plus `env`."""
    base = {
        k: v
        for k, v in os.environ.items()
        if k
        not in {"DEBUG", "SECRET_KEY", "DATABASE_URL", "CONN_MAX_AGE", "DJANGO_ALLOW_ASYNC_UNSAFE"}
    }
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_check_deploy_is_clean_with_production_values(tmp_path):
    env = {**PRODUCTION_ENV, "POLICYEDITOR_DATA_DIR": str(tmp_path)}
    result = run_manage("check", "--deploy", "--fail-level", "WARNING", env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_production_settings_refuse_to_start_without_a_secret_key(tmp_path):
    env = {"DEBUG": "0", "POLICYEDITOR_DATA_DIR": str(tmp_path)}
    result = run_manage("check", env=env)
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


def test_database_url_selects_postgresql():
    code = (
        "import os; os.environ['DATABASE_URL']='postgres://u:p@db.internal:5433/policies';"
        "os.environ['DEBUG']='1';"
        "from policyeditor import settings as s; d=s.DATABASES['default'];"
        "print(d['ENGINE'], d['HOST'], d['PORT'], d['NAME'])"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert result.stdout.split() == [
        "django.db.backends.postgresql",
        "db.internal",
        "5433",
        "policies",
    ]


def test_the_default_database_is_sqlite_in_wal_mode_with_a_busy_timeout():
    from django.conf import settings

    if settings.DATABASES["default"]["ENGINE"] != "django.db.backends.sqlite3":
        pytest.skip("the PostgreSQL pass of CI runs the suite with DATABASE_URL set")
    options = settings.DATABASES["default"]["OPTIONS"]
    assert options["timeout"] >= 5
    assert "journal_mode=WAL" in options["init_command"]


@pytest.mark.django_db
def test_the_cache_is_shared_by_every_server_process_through_the_database():
    from django.core.cache import cache
    from django.db import connection

    assert "policyeditor_cache" in connection.introspection.table_names()
    cache.set("throttle-probe", 3)
    with connection.cursor() as cursor:
        cursor.execute("SELECT COUNT(*) FROM policyeditor_cache")
        assert cursor.fetchone()[0] >= 1
    assert cache.get("throttle-probe") == 3


def test_a_fresh_checkout_gets_its_sqlite_folder_created(tmp_path):
    target = tmp_path / "fresh" / "data"
    result = run_manage(
        "migrate", "--noinput", env={"DEBUG": "1", "POLICYEDITOR_DATA_DIR": str(target)}
    )
    assert result.returncode == 0, result.stderr
    assert (target / "db.sqlite3").is_file()


def _connection_kept_after_a_request(tmp_path, env: dict[str, str]) -> str:
    """On SQLite, in a fresh process: 'kept' or 'closed' after a request's end signal."""
    code = (
        "from django.core.signals import request_finished, request_started;"
        "from django.db import connection;"
        "request_started.send(sender=None); connection.ensure_connection();"
        "raw = connection.connection; request_finished.send(sender=None);"
        "print('kept' if connection.connection is raw else 'closed')"
    )
    result = run_manage(
        "shell",
        "--no-imports",
        "-c",
        code,
        env={"DEBUG": "1", "POLICYEDITOR_DATA_DIR": str(tmp_path), **env},
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_sqlite_connections_persist_between_requests_unless_conn_max_age_is_zero(tmp_path):
    # Opening a SQLite connection and running its PRAGMAs cost about 0.7 ms of every request.
    assert _connection_kept_after_a_request(tmp_path, {}) == "kept"
    assert _connection_kept_after_a_request(tmp_path, {"CONN_MAX_AGE": "0"}) == "closed"
