"""API fixtures: token-authenticated clients and JSON helpers."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from policyeditor.api.models import ApiToken


class ApiClient:
    """A Django test client that sends a personal token and JSON bodies."""

    def __init__(self, token: str | None) -> None:
        self.client = Client()
        self.token = token

    def _headers(self, headers: dict | None) -> dict:
        result = {"HTTP_AUTHORIZATION": f"Token {self.token}"} if self.token else {}
        for key, value in (headers or {}).items():
            result["HTTP_" + key.upper().replace("-", "_")] = value
        return result

    def get(self, path: str, headers: dict | None = None, **params):
        return self.client.get(path, params, **self._headers(headers))

    def send(
        self, method: str, path: str, body=None, *, content_type="application/json", headers=None
    ):
        data = body if isinstance(body, str | bytes) or body is None else json.dumps(body)
        call = getattr(self.client, method.lower())
        return call(path, data=data or "", content_type=content_type, **self._headers(headers))

    def post(self, path: str, body=None, **kwargs):
        return self.send("POST", path, body, **kwargs)

    def put(self, path: str, body=None, **kwargs):
        return self.send("PUT", path, body, **kwargs)

    def patch(self, path: str, body=None, **kwargs):
        return self.send("PATCH", path, body, **kwargs)

    def delete(self, path: str, **kwargs):
        return self.send("DELETE", path, None, **kwargs)


@pytest.fixture
def alice_token(alice) -> str:
    """A personal token of alice's."""
    return ApiToken.issue(alice, "tests")[1]


@pytest.fixture
def api(alice_token) -> ApiClient:
    """An API client authenticated as alice with her token."""
    return ApiClient(alice_token)


@pytest.fixture
def bob_api(bob) -> ApiClient:
    """An API client authenticated as bob."""
    return ApiClient(ApiToken.issue(bob, "tests")[1])


@pytest.fixture
def anonymous() -> ApiClient:
    """An API client without credentials."""
    return ApiClient(None)


def client_for(user) -> ApiClient:
    """An API client with a fresh token of `user`."""
    return ApiClient(ApiToken.issue(user, "tests")[1])


@pytest.fixture
def draft(alice):
    """alice's personal draft of the example policy (revision 1)."""
    from policyeditor.api.examples import POLICY
    from policyeditor.editor.services import create_draft

    return create_draft(alice, [POLICY], name="replica-limit")


@pytest.fixture
def team_draft(alice, team):
    """alice's draft of the example policy in team-a."""
    from policyeditor.api.examples import POLICY
    from policyeditor.editor.services import create_draft
    from policyeditor.review.workflow import assign_team

    draft = create_draft(alice, [POLICY], name="team-limit")
    assign_team(alice, draft, team)
    draft.refresh_from_db()
    return draft
