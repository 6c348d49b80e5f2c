"""`Authorization: Token <token>` (or `Bearer <token>`) authentication with personal API tokens."""

from __future__ import annotations

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication, get_authorization_header

from policyeditor.api.models import ApiToken

KEYWORDS = (b"token", b"bearer")


class ApiTokenAuthentication(BaseAuthentication):
    """Looks the token up by its digest; a revoked or unknown token is a 401."""

    def authenticate(self, request):
        parts = get_authorization_header(request).split()
        if not parts or parts[0].lower() not in KEYWORDS:
            return None  # no token: let session authentication try
        if len(parts) != 2:
            raise exceptions.AuthenticationFailed(
                "Invalid Authorization header: expected 'Token <token>'."
            )
        try:
            token = parts[1].decode("ascii")
        except UnicodeDecodeError as exc:
            raise exceptions.AuthenticationFailed("Invalid token: not ASCII.") from exc
        row = ApiToken.objects.matching(token).first()
        if row is None:
            raise exceptions.AuthenticationFailed("Invalid or revoked token.")
        if row.expired:
            raise exceptions.AuthenticationFailed(
                f"Token expired on {row.expires:%Y-%m-%d %H:%M} UTC: create a new one on the "
                "API tokens page."
            )
        if not row.user.is_active:
            raise exceptions.AuthenticationFailed("User inactive or deleted.")
        row.touch()
        return row.user, row

    def authenticate_header(self, request) -> str:
        return 'Token realm="api"'


class ApiTokenScheme(OpenApiAuthenticationExtension):
    """How the OpenAPI schema describes token authentication."""

    target_class = ApiTokenAuthentication
    name = "tokenAuth"

    def get_security_definition(self, auto_schema) -> dict:
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": 'A personal token from the API tokens page: "Token <token>".',
        }
