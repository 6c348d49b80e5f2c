"""POST /api/v1/lint (CEL pitfalls) and POST /api/v1/static-manifests (the layout)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rest_framework.request import Request
from rest_framework.response import Response

from policyeditor.api import engine_calls_lint
from policyeditor.api.base import ApiView, engine_payload
from policyeditor.api.engine_gate import call_engine, deadline_for
from policyeditor.api.schema import engine_operation
from policyeditor.api.serializers_lint import (
    LintRequestSerializer,
    LintResponseSerializer,
    StaticRequestSerializer,
    StaticResponseSerializer,
)


class LintView(ApiView):
    """Find Kubernetes CEL pitfalls in policies (no database)."""

    @engine_operation(
        operation_id="lint",
        summary="Lint CEL expressions",
        description=(
            "Kubernetes CEL pitfalls in every expression of every policy: has() on map keys, "
            "label keys with dots, object on DELETE, oldSelf, authorizer checks without "
            "allowed(), failing messageExpressions, string concatenation, JSONPatch fields, "
            "cost, and more (docs/linter.md). Findings are warnings: they never make a policy "
            'invalid. Send `{"documents": [...]}` or `{"yaml": "..."}`.'
        ),
        request=LintRequestSerializer,
        response=LintResponseSerializer,
    )
    def post(self, request: Request) -> Response:
        return _engine_answer(request, LintRequestSerializer, engine_calls_lint.lint_bundle)


class StaticManifestsView(ApiView):
    """The staticManifestsDir layout of policies and bindings (no database)."""

    @engine_operation(
        operation_id="static_manifests",
        summary="Lay out static manifests",
        description=(
            "Manifest-based admission control (KEP-5793): the files of a staticManifestsDir "
            "layout (one directory per plugin, admission-configuration.yaml with the "
            "AdmissionConfiguration stanza) and the static loader's errors, if any."
        ),
        request=StaticRequestSerializer,
        response=StaticResponseSerializer,
    )
    def post(self, request: Request) -> Response:
        return _engine_answer(
            request, StaticRequestSerializer, engine_calls_lint.static_bundle, "baseDir"
        )


def _engine_answer(
    request: Request, serializer_class: type, function: Callable[..., Any], *fields: str
) -> Response:
    """`function(documents, version, *fields)` run on the body in the isolation pool."""
    payload = engine_payload(serializer_class, request)
    documents = payload["documents"]
    extra = [payload[name] for name in fields]
    return Response(
        call_engine(
            function,
            documents,
            payload["kubernetesVersion"],
            *extra,
            timeout=deadline_for(documents),
        )
    )
