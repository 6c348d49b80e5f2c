"""The database-free endpoints: validate, evaluate and cel."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter
from rest_framework.request import Request
from rest_framework.response import Response

from policyeditor.api import engine_calls, examples
from policyeditor.api.base import ApiView, engine_payload, envelope, looks_like_documents
from policyeditor.api.engine_gate import call_engine, deadline_for
from policyeditor.api.schema import engine_operation
from policyeditor.api.serializers_engine import (
    CelRequestSerializer,
    CelResponseSerializer,
    EvaluateRequestSerializer,
    EvaluateResponseSerializer,
    ValidateRequestSerializer,
    ValidateResponseSerializer,
)
from policyeditor.engine.versions import DEFAULT_VERSION

YAML_BODY = {
    "application/json": ValidateRequestSerializer,
    "application/yaml": {
        "type": "string",
        "description": "Multi-document YAML: the Kubernetes objects themselves.",
    },
}


class ValidateView(ApiView):
    """Validate policies and bindings as kube-apiserver would (no database)."""

    @engine_operation(
        operation_id="validate",
        summary="Validate documents",
        description=(
            "API-server validation of ValidatingAdmissionPolicy, MutatingAdmissionPolicy and "
            "their bindings, including CEL compilation for the target Kubernetes version. "
            'Send `{"documents": [...]}` or `{"yaml": "..."}` as JSON, or the YAML '
            "itself with `Content-Type: application/yaml` (then `?kubernetesVersion=` picks "
            "the version). Errors in the documents are a 200 with `valid: false`; a 400 means "
            "the request itself could not be read."
        ),
        request=YAML_BODY,
        parameters=[
            OpenApiParameter(
                "kubernetesVersion",
                str,
                description="Target version for a YAML body (a JSON body has the field).",
            ),
            OpenApiParameter(
                "static",
                bool,
                description="For a YAML body: validate as static manifests (a JSON body has "
                "the field).",
            ),
        ],
        response=ValidateResponseSerializer,
        examples=[
            examples.VALIDATE_REQUEST,
            examples.VALIDATE_YAML_REQUEST,
            examples.VALIDATE_RESPONSE,
        ],
    )
    def post(self, request: Request) -> Response:
        if looks_like_documents(request.data):
            data: dict[str, Any] = {"documents": list(request.data)}
            if "kubernetesVersion" in request.query_params:
                data["kubernetesVersion"] = request.query_params["kubernetesVersion"]
            if "static" in request.query_params:
                data["static"] = request.query_params["static"]
        else:
            data = envelope(request.data)
        serializer = ValidateRequestSerializer(data=data)
        serializer.is_valid(raise_exception=True)
        attrs = serializer.validated_data
        version = attrs.get("kubernetesVersion") or DEFAULT_VERSION
        documents = attrs["documents"]
        crds = attrs.get("crds") or []
        return Response(
            call_engine(
                engine_calls.validate_bundle,
                documents,
                version,
                bool(attrs.get("static")),
                crds,
                timeout=deadline_for([*documents, *crds]),
            )
        )


class EvaluateView(ApiView):
    """Evaluate policies against one admission request (no database)."""

    @engine_operation(
        operation_id="evaluate",
        summary="Evaluate an admission request",
        description=(
            "Runs the documents' policies on one request, as kube-apiserver would, and returns "
            "the decision (allow, deny, warn, audit, skip or error), the message kubectl would "
            "print, warnings, audit annotations, for a MutatingAdmissionPolicy the mutated "
            "object and patch, and every step of every policy. A policy without a binding is "
            "evaluated as if bound with validationActions [Deny]. The body may also be YAML "
            "(`Content-Type: application/yaml`) with the same fields."
        ),
        request=EvaluateRequestSerializer,
        response=EvaluateResponseSerializer,
        examples=[examples.EVALUATE_REQUEST, examples.EVALUATE_RESPONSE],
    )
    def post(self, request: Request) -> Response:
        payload = engine_payload(EvaluateRequestSerializer, request)
        timeout = deadline_for([*payload["documents"], *(payload.get("crds") or [])])
        return Response(call_engine(engine_calls.evaluate_bundle, payload, timeout=timeout))


class CelView(ApiView):
    """Evaluate one CEL expression in the Kubernetes CEL environment (no database)."""

    @engine_operation(
        operation_id="cel",
        summary="Evaluate a CEL expression",
        description=(
            "Compiles the expression for the field kind given by `context` (which decides the "
            "declared variables) and evaluates it with the given variables. A compile or "
            "runtime error is a 200 with `error` set; a 400 means the request was malformed."
        ),
        request=CelRequestSerializer,
        response=CelResponseSerializer,
        examples=[examples.CEL_REQUEST, examples.CEL_RESPONSE],
    )
    def post(self, request: Request) -> Response:
        payload = engine_payload(CelRequestSerializer, request)
        payload["variables"] = [dict(item) for item in payload.get("variables", [])]
        crds = payload.get("crds") or []
        timeout = deadline_for(crds) if crds else None
        return Response(call_engine(engine_calls.evaluate_cel, payload, timeout=timeout))
