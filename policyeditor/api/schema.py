"""OpenAPI pieces shared by the views: the problem shape and the error responses."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers

from policyeditor.api.examples import PROBLEM_EXAMPLE


class ProblemFieldErrorSerializer(serializers.Serializer):
    """One field at fault, with its Kubernetes-style path."""

    path = serializers.CharField()
    message = serializers.CharField()


class ProblemSerializer(serializers.Serializer):
    """RFC 9457 problem details, as every API error is answered (application/problem+json)."""

    type = serializers.URLField()
    title = serializers.CharField()
    status = serializers.IntegerField()
    detail = serializers.CharField(help_text="The exact reason.")
    instance = serializers.CharField(required=False)
    errors = ProblemFieldErrorSerializer(many=True)  # type: ignore[assignment]  # a declared field: DRF's metaclass moves it out of the attributes the stubs type


def problem(description: str) -> OpenApiResponse:
    """An error response documented with the problem shape."""
    return OpenApiResponse(ProblemSerializer, description=description)


AUTH_ERRORS = {
    401: problem("No or an invalid token / session."),
    429: problem("Too many requests for this token; see Retry-After."),
}
INPUT_ERRORS = {
    400: OpenApiResponse(
        ProblemSerializer,
        description="The input cannot be read or has the wrong shape; detail says exactly why.",
        examples=[PROBLEM_EXAMPLE],
    ),
    413: problem("The body is larger than the API server's 3 MiB limit."),
    415: problem("The body is neither JSON nor YAML."),
    422: problem("The input could not be evaluated within the time or memory limits."),
    **AUTH_ERRORS,
}


def engine_operation(*, request: Any, response: Any, **schema: Any) -> Any:
    """extend_schema of a database-free engine endpoint: its 200 body, the input errors, its tag."""
    return extend_schema(
        request=request, responses={200: response, **INPUT_ERRORS}, tags=["engine"], **schema
    )
