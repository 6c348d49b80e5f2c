"""Shared fixtures: users, signed-in clients, and a real chromium driven by Playwright."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# Playwright's sync API runs an event loop in the test thread; Django would then refuse ORM calls
# made by fixtures in that thread. The live server runs in its own thread, so this is safe here.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = os.environ.get("POLICYEDITOR_CHROMIUM", "/usr/bin/chromium")
# The flags this kind of machine needs: no sandbox as root, and no background traffic to a closed network.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--no-first-run",
]
PASSWORD = "correct-horse-battery-staple-42"
# Screenshots of key states go to docs/screenshots only when asked for (`make screenshots`), so a
# plain test run never rewrites tracked files; otherwise they land in a scratch folder.
SCREENSHOTS = Path(__file__).resolve().parents[1] / "docs" / "screenshots"


def screenshot(tab, name: str, *, full_page: bool = False) -> Path:
    """Save a PNG of the tab's current state and return its path."""
    if os.environ.get("POLICYEDITOR_SCREENSHOTS") == "1":
        folder = SCREENSHOTS
    else:
        folder = Path(tempfile.gettempdir()) / "policyeditor-screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.png"
    tab.screenshot(path=str(path), full_page=full_page)
    return path


@pytest.fixture
def make_user(django_user_model):
    """Create a user with the shared test password."""

    def make(username: str, **extra):
        return django_user_model.objects.create_user(username=username, password=PASSWORD, **extra)

    return make


@pytest.fixture
def alice(make_user):
    """The first test user."""
    return make_user("alice", email="alice@example.com")


@pytest.fixture
def bob(make_user):
    """A second test user, for permission and review tests."""
    return make_user("bob", email="bob@example.com")


@pytest.fixture
def carol(make_user):
    """A viewer of team-a."""
    return make_user("carol")


@pytest.fixture
def dave(make_user):
    """The admin of team-a."""
    return make_user("dave")


@pytest.fixture
def team(alice, bob, carol, dave):
    """team-a: alice author, bob reviewer, carol viewer, dave admin."""
    from policyeditor.teams.models import Role

    return team_of(
        "team-a",
        [(alice, Role.AUTHOR), (bob, Role.REVIEWER), (carol, Role.VIEWER), (dave, Role.ADMIN)],
    )


def team_of(name: str, members: list) -> Any:
    """A team called `name` with each (user, role) of `members` in it."""
    from policyeditor.teams.models import Membership, Team

    team = Team.objects.create(name=name)
    for user, role in members:
        Membership.objects.create(team=team, user=user, role=role)
    return team


@pytest.fixture
def alice_client(client, alice):
    """A Django test client signed in as alice."""
    client.force_login(alice)
    return client


@pytest.fixture
def as_user(client):
    """Sign the test client in as a user."""

    def sign_in(user):
        client.force_login(user)
        return client

    return sign_in


@pytest.fixture
def admin_client(client, make_user):
    """A client signed in as a superuser."""
    client.force_login(make_user("root", is_staff=True, is_superuser=True))
    return client


@pytest.fixture(scope="session")
def browser() -> Iterator:
    """One headless chromium for the whole run (Debian's package, never a downloaded build)."""
    if not shutil.which(CHROMIUM) and not os.path.exists(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: run `make test` (it installs Debian's chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        yield instance
        instance.close()


# htmx logs a request it aborts on purpose (hx-sync "replace": typing on while a live validation
# is under way) as two console errors; a failed request also logs htmx:responseError or
# htmx:sendError, which are kept.
_HTMX_ABORT = ("htmx:sendAbort", "htmx:afterRequest")


def _is_console_error(msg) -> bool:
    return msg.type == "error" and not msg.text.startswith(_HTMX_ABORT)


@pytest.fixture
def page(browser, live_server) -> Iterator:
    """A fresh browser tab on the live server; console errors (e.g. CSP violations) are kept."""
    context = browser.new_context(base_url=live_server.url, viewport={"width": 1440, "height": 900})
    context.set_default_timeout(10_000)
    tab = context.new_page()
    tab.console_errors = []
    tab.on("console", lambda msg: _is_console_error(msg) and tab.console_errors.append(msg.text))
    tab.on("pageerror", lambda exc: tab.console_errors.append(str(exc)))
    yield tab
    context.close()


def sign_in(tab, username: str, password: str = PASSWORD) -> None:
    """Sign in through the real login form."""
    tab.goto("/login/")
    tab.get_by_label("Username").fill(username)
    tab.get_by_label("Password").fill(password)
    tab.get_by_role("button", name="Sign in").click()
    tab.wait_for_load_state("networkidle")


@pytest.fixture
def alice_page(page, alice):
    """A browser tab signed in as alice."""
    sign_in(page, "alice")
    return page
