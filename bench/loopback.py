"""A throw-away production-style server on 127.0.0.1 for the load test and the concurrency test.

LoopbackServer makes a temporary data directory (its own SQLite file in WAL mode, as `make serve`
would use), migrates it, creates users with API tokens and browser sessions, starts gunicorn with
several workers on a free loopback port, waits for /healthz, and stops everything on exit.
Nothing listens beyond 127.0.0.1 and nothing outside the temporary directory is touched.
"""

from __future__ import annotations

import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
CSRF = "loopbackloadtestcsrfsecret012345"  # 32 alphanumerics: a valid unmasked CSRF secret

_SETUP = """
import json
from django.contrib.auth import get_user_model
from django.contrib.sessions.backends.db import SessionStore
from django.contrib.auth import SESSION_KEY, BACKEND_SESSION_KEY, HASH_SESSION_KEY
from policyeditor.api.models import ApiToken
from policyeditor.editor.services import create_draft
from policyeditor.editor.starters import get_starter

out = {"users": []}
for index in range(COUNT):
    user = get_user_model().objects.create_user(f"load{index}", password="not-used-42-Aa")
    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.create()
    draft = create_draft(user, get_starter("replica-limit").documents())
    out["users"].append({"name": user.username, "session": session.session_key,
                         "token": ApiToken.issue(user, "load")[1], "draft": draft.pk})
print("SETUP" + json.dumps(out))
"""


@dataclass
class Account:
    """One signed-in user of the server: a session for the UI, a token for the API, a draft."""

    name: str
    session: str
    token: str
    draft: int


@dataclass
class Response:
    """What a request got back, and how long it took."""

    status: int
    body: bytes
    headers: dict[str, str]
    seconds: float

    def json(self) -> dict:
        return json.loads(self.body)


def free_port() -> int:
    """A TCP port nothing listens on right now (on the loopback interface)."""
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


@dataclass
class LoopbackServer:
    """gunicorn serving policyeditor from a temporary database; use as a context manager."""

    workers: int = 4
    accounts: int = 1
    port: int = 0
    users: list[Account] = field(default_factory=list)
    settings: dict[str, str] = field(default_factory=dict)  # extra environment for the server
    log: Path | None = None
    access_log: Path | None = None
    _dir: Path | None = None
    _process: subprocess.Popen | None = None

    def env(self) -> dict[str, str]:
        """The server's environment: development settings on the temporary database."""
        env = dict(os.environ)
        env.update(
            DEBUG="1",
            DJANGO_SETTINGS_MODULE="policyeditor.settings",
            POLICYEDITOR_DATA_DIR=str(self._dir),
            LOG_LEVEL="WARNING",
            PYTHONPATH=str(ROOT),
        )
        env.update(self.settings)
        env.pop("DATABASE_URL", None)  # always the temporary SQLite file, never a real database
        return env

    def _manage(self, *args: str, stdin: str | None = None) -> str:
        result = subprocess.run(
            [sys.executable, str(ROOT / "manage.py"), *args],
            input=stdin,
            capture_output=True,
            text=True,
            env=self.env(),
            cwd=ROOT,
            timeout=300,
        )
        if result.returncode != 0:
            raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{result.stderr[-2000:]}")
        return result.stdout

    def __enter__(self) -> LoopbackServer:
        self._dir = Path(tempfile.mkdtemp(prefix="policyeditor-loopback-"))
        try:
            self._manage("migrate", "--noinput")
            out = self._manage("shell", stdin=_SETUP.replace("COUNT", str(self.accounts)))
            data = json.loads(out.split("SETUP", 1)[1])
            self.users = [Account(**item) for item in data["users"]]
            self.port = self.port or free_port()
            self.log = self._dir / "gunicorn.log"
            self.access_log = self._dir / "access.log"
            self._process = subprocess.Popen(
                [
                    sys.executable, "-m", "gunicorn", "policyeditor.wsgi",
                    "--bind", f"{HOST}:{self.port}",
                    "--workers", str(self.workers),
                    "--timeout", "30",
                    "--log-file", str(self.log),
                    # method, path, status, microseconds: how long each request held a worker
                    "--access-logfile", str(self.access_log),
                    "--access-logformat", "%(m)s %(U)s %(s)s %(D)s",
                ],
                env=self.env(),
                cwd=ROOT,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )  # fmt: skip
            self._wait_healthy()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def _wait_healthy(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._process is not None and self._process.poll() is not None:
                raise RuntimeError(f"gunicorn exited: {self.log.read_text()[-2000:]}")
            try:
                if self.request("GET", "/healthz").status == 200:
                    return
            except OSError:
                pass
            time.sleep(0.2)
        raise RuntimeError("the server did not become healthy in time")

    def __exit__(self, *exc) -> None:
        if self._process is not None and self._process.poll() is None:
            # gunicorn's own process group: the master, its workers and their engine workers.
            os.killpg(self._process.pid, signal.SIGTERM)
            try:
                self._process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self._process.pid, signal.SIGKILL)
                self._process.wait(timeout=10)
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)

    def request(
        self,
        method: str,
        path: str,
        body: bytes | str | None = None,
        *,
        headers: dict[str, str] | None = None,
        timeout: float = 30.0,
    ) -> Response:
        """One HTTP request to the server (a new connection: sync gunicorn workers close them)."""
        data = body.encode() if isinstance(body, str) else body
        connection = http.client.HTTPConnection(HOST, self.port, timeout=timeout)
        started = time.perf_counter()
        try:
            connection.request(method, path, body=data, headers=headers or {})
            reply = connection.getresponse()
            payload = reply.read()
        finally:
            connection.close()
        return Response(
            reply.status, payload, dict(reply.getheaders()), time.perf_counter() - started
        )

    def access_entries(self, since: int = 0) -> list[tuple[str, str, int, float]]:
        """(method, path, status, seconds held) of each request logged past byte `since`."""
        entries = []
        with open(self.access_log, "rb") as handle:
            handle.seek(since)
            for line in handle.read().decode(errors="replace").splitlines():
                parts = line.split()
                if len(parts) == 4 and parts[2].isdigit() and parts[3].isdigit():
                    entries.append((parts[0], parts[1], int(parts[2]), int(parts[3]) / 1e6))
        return entries

    def access_log_size(self) -> int:
        """Where the access log ends now (to read only what a phase logged)."""
        return self.access_log.stat().st_size if self.access_log.exists() else 0

    def api(self, account: Account, method: str, path: str, payload: dict, **headers: str):
        """A JSON API call with the account's token."""
        all_headers = {
            "Authorization": f"Token {account.token}",
            "Content-Type": "application/json",
            **headers,
        }
        return self.request(method, path, json.dumps(payload), headers=all_headers)

    def ui_post(self, account: Account, path: str, fields: dict) -> Response:
        """A form POST as the signed-in browser of the account would send it, htmx included."""
        from urllib.parse import urlencode

        headers = {
            "Cookie": f"sessionid={account.session}; csrftoken={CSRF}",
            "X-CSRFToken": CSRF,
            "HX-Request": "true",
            "Content-Type": "application/x-www-form-urlencoded",
        }
        return self.request("POST", path, urlencode(fields, doseq=True), headers=headers)
