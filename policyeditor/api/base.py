"""The base class of every API view: authentication, throttling, parsers and problem JSON."""

from __future__ import annotations

import logging
import re
from typing import Any

from django.contrib.auth.decorators import login_not_required
from rest_framework import exceptions
from rest_framework.authentication import SessionAuthentication
from rest_framework.permissions import IsAuthenticated
from rest_framework.renderers import JSONRenderer
from rest_framework.views import APIView

from policyeditor.api.authentication import ApiTokenAuthentication
from policyeditor.api.models import ApiToken
from policyeditor.api.parsers import PARSERS, ManifestBody
from policyeditor.api.problems import Problem, exception_handler
from policyeditor.api.throttling import ApiRateThrottle
from policyeditor.engine.versions import DEFAULT_VERSION

logger = logging.getLogger(__name__)


class ApiView(APIView):
    """Token or session authentication, signed-in users only, per-token throttling."""

    # Token first: its challenge makes an unauthenticated request a 401, not a 403.
    authentication_classes = [ApiTokenAuthentication, SessionAuthentication]
    permission_classes = [IsAuthenticated]
    throttle_classes = [ApiRateThrottle]
    parser_classes = PARSERS
    renderer_classes = [JSONRenderer]

    @classmethod
    def as_view(cls, **initkwargs):
        view = super().as_view(**initkwargs)
        # API clients authenticate per request (token); the site-wide login redirect is for pages.
        return login_not_required(view)

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        token = getattr(request, "_auth", None)
        if isinstance(token, ApiToken):
            # Clients learn when their token stops working before it does.
            expires = token.expires.isoformat() if token.expires else "never"
            response["Policyeditor-Token-Expires"] = expires
        return response

    def get_exception_handler(self):
        return exception_handler

    def handle_exception(self, exc: Exception):
        try:
            return super().handle_exception(exc)
        except (
            Exception
        ) as unexpected:  # a bug, not the client's fault: log it, answer problem JSON
            logger.exception("unexpected error in %s", type(self).__name__)
            problem = Problem(
                500,
                f"internal error ({type(unexpected).__name__}); it has been logged",
                slug="internal-error",
                title="Internal server error",
            )
            return super().handle_exception(problem)


def envelope(data: Any) -> dict:
    """The request body as one mapping of fields (empty for an empty body), else a 400."""
    if isinstance(data, ManifestBody):
        if data.array:
            raise Problem(400, "expected a JSON object in the request body, got an array")
        if len(data) == 0:
            return {}
        if len(data) > 1:
            raise Problem(
                400, f"expected one object in the request body, got {len(data)} documents"
            )
        return data[0]
    if isinstance(data, dict):
        return dict(data)
    raise exceptions.ParseError("expected a JSON object in the request body")


def engine_payload(serializer_class: type, request: Any) -> dict:
    """The validated body (envelope or bare), for the default Kubernetes version unless named."""
    serializer = serializer_class(data=envelope(request.data))
    serializer.is_valid(raise_exception=True)
    payload = dict(serializer.validated_data)
    payload.pop("source", None)  # the YAML text as written matters to drafts only
    payload.setdefault("kubernetesVersion", DEFAULT_VERSION)
    return payload


def looks_like_documents(data: Any) -> bool:
    """True when a body is Kubernetes documents themselves rather than a field mapping."""
    if not isinstance(data, ManifestBody) or not data:
        return False
    # Field mappings never have apiVersion; every Kubernetes object does.
    return data.array or len(data) > 1 or "apiVersion" in data[0]


_REVISION = re.compile(r"[0-9]{1,9}")


def revision_number(text: str) -> int | None:
    """A revision number written as ASCII digits (at most nine), else None."""
    # str.isdigit() accepts digits int() refuses (superscripts) and any length.
    return int(text) if _REVISION.fullmatch(text) else None
