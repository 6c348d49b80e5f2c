"""Request and response examples for the OpenAPI schema and the docs page."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample

POLICY: dict[str, Any] = {
    "apiVersion": "admissionregistration.k8s.io/v1",
    "kind": "ValidatingAdmissionPolicy",
    "metadata": {"name": "replica-limit.example.com"},
    "spec": {
        "failurePolicy": "Fail",
        "matchConstraints": {
            "resourceRules": [
                {
                    "apiGroups": ["apps"],
                    "apiVersions": ["v1"],
                    "operations": ["CREATE", "UPDATE"],
                    "resources": ["deployments"],
                }
            ]
        },
        "validations": [
            {"expression": "object.spec.replicas <= 5", "message": "replicas must be at most 5"}
        ],
    },
}

DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web", "namespace": "default"},
    "spec": {"replicas": 6},
}

VALIDATE_REQUEST = OpenApiExample(
    "A policy with a typo",
    request_only=True,
    value={
        "kubernetesVersion": "1.34",
        "documents": [
            {
                **POLICY,
                "spec": {
                    **POLICY["spec"],
                    "validations": [{"expression": "object.spec.replicas <= "}],
                },
            }
        ],
    },
)
VALIDATE_YAML_REQUEST = OpenApiExample(
    "The same as YAML text",
    request_only=True,
    value={
        "yaml": "apiVersion: admissionregistration.k8s.io/v1\n"
        "kind: ValidatingAdmissionPolicy\n"
        "metadata:\n  name: replica-limit.example.com\n"
        "spec:\n  validations:\n  - expression: object.spec.replicas <= 5\n"
    },
)
VALIDATE_RESPONSE = OpenApiExample(
    "Validation errors",
    response_only=True,
    status_codes=["200"],
    value={
        "valid": False,
        "kubernetesVersion": "1.34",
        "errors": [
            {
                "document": 0,
                "kind": "ValidatingAdmissionPolicy",
                "name": "replica-limit.example.com",
                "path": "spec.validations[0].expression",
                "message": 'Invalid value: "object.spec.replicas <= ": compilation failed: '
                "ERROR: <input>:1:25: Syntax error: mismatched input '<EOF>' expecting ...",
            }
        ],
        "warnings": [],
    },
)

EVALUATE_REQUEST = OpenApiExample(
    "A Deployment with too many replicas",
    request_only=True,
    value={"documents": [POLICY], "object": DEPLOYMENT},
)
EVALUATE_RESPONSE = OpenApiExample(
    "Denied",
    response_only=True,
    status_codes=["200"],
    value={
        "result": "deny",
        "allowed": False,
        "statusCode": 422,
        "reason": "Invalid",
        "message": 'deployments.apps "web" is forbidden: ValidatingAdmissionPolicy '
        "'replica-limit.example.com' denied request: "
        "replicas must be at most 5",
        "warnings": [],
        "auditAnnotations": {},
        "object": DEPLOYMENT,
        "patch": [],
        "diff": "",
        "errors": [],
        "policies": [{"policy": "replica-limit.example.com", "result": "deny"}],
        "kubernetesVersion": "1.37",
    },
)

CEL_REQUEST = OpenApiExample(
    "An expression over an object",
    request_only=True,
    value={"expression": "object.spec.replicas * 2", "object": DEPLOYMENT},
)
CEL_RESPONSE = OpenApiExample(
    "Its value",
    response_only=True,
    status_codes=["200"],
    value={
        "value": 12,
        "error": None,
        "cost": 3,
        "estimatedCost": 3,
        "warnings": [],
        "kubernetesVersion": "1.37",
    },
)

PROBLEM_EXAMPLE = OpenApiExample(
    "Unreadable YAML",
    response_only=True,
    status_codes=["400"],
    value={
        "type": "https://policyeditor.dev/problems/unreadable-input",
        "title": "Invalid input",
        "status": 400,
        "detail": "yaml: document 1: line 2, column 7: mapping values are not allowed here",
        "instance": "/api/v1/validate",
        "errors": [],
        "document": 1,
        "line": 2,
        "column": 7,
    },
)
