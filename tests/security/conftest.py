"""Fixtures of the hostile-input and XSS suites: a draft, signed-in clients, response text."""

from __future__ import annotations

import html

import pytest
from django.test import Client

from policyeditor.api.models import ApiToken
from policyeditor.editor.models import Draft
from policyeditor.editor.services import create_draft
from policyeditor.editor.starters import get_starter


@pytest.fixture
def draft(alice) -> Draft:
    """Alice's replica-limit draft (policy, binding, params) at revision 1."""
    return create_draft(alice, get_starter("replica-limit").documents())


@pytest.fixture
def ui(alice) -> Client:
    """A browser-like client signed in as alice."""
    client = Client()
    client.force_login(alice)
    return client


@pytest.fixture
def api(alice) -> Client:
    """A client that sends alice's API token with every request."""
    token = ApiToken.issue(alice, "security-tests")[1]
    return Client(HTTP_AUTHORIZATION=f"Token {token}")


def text(response) -> str:
    """The response body with HTML entities decoded, to look for a message as the user reads it."""
    return html.unescape(response.content.decode("utf-8", errors="replace"))


def state(draft: Draft) -> tuple:
    """What must not change when input is refused: revision, documents, name, history."""
    draft = Draft.objects.get(pk=draft.pk)
    return draft.revision, draft.documents, draft.name, draft.revisions.count()
