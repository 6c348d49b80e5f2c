"""Script payloads for the XSS tests, and the check that a page shows them only as text."""

from __future__ import annotations

import copy
import re

from tests.builders import rules

SCRIPT = '<script>alert("xss-script")</script>'
IMG = '"><img src=x onerror=alert("xss-img")>'
SVG = "'><svg onload=alert('xss-svg')>"
PAYLOADS = (SCRIPT, IMG, SVG)
ALL = SCRIPT + IMG + SVG  # one string carrying every payload, for fields that take any text

# What would run if a payload were rendered as markup.
LIVE_MARKUP = [
    re.compile(r"<script>alert\(", re.I),
    re.compile(r"<img\b[^>]*\bonerror\s*=", re.I),
    re.compile(r"<svg\b[^>]*\bonload\s*=", re.I),
    re.compile(r"""href\s*=\s*["']?\s*javascript:""", re.I),
]


def live_markup(html: str) -> list[str]:
    """The payload markup found unescaped in `html` (empty when every payload is inert)."""
    return [pattern.pattern for pattern in LIVE_MARKUP if pattern.search(html)]


def hostile_documents() -> list[dict]:
    """A policy, binding and params whose every text field carries the payloads."""
    policy = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": ALL, "labels": {"team": ALL}, "annotations": {"note": ALL}},
        "spec": {
            "failurePolicy": "Fail",
            "paramKind": {"apiVersion": "v1", "kind": "ConfigMap"},
            "matchConstraints": rules(operations=("CREATE",), resourceNames=[ALL]),
            "matchConditions": [{"name": ALL, "expression": f"{cel_string()} != ''"}],
            "variables": [{"name": "payload", "expression": cel_string()}],
            "validations": [
                {
                    "expression": f"object.metadata.name == {cel_string()}",
                    "message": ALL,
                    "messageExpression": f"{cel_string()} + ' denied'",
                    "reason": ALL,
                }
            ],
            "auditAnnotations": [{"key": ALL, "valueExpression": cel_string()}],
        },
    }
    binding = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": ALL},
        "spec": {"policyName": ALL, "validationActions": ["Deny"], "paramRef": {"name": ALL}},
    }
    params = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": ALL, "namespace": "default"},
        "data": {ALL: ALL},
    }
    return [policy, binding, params]


def cel_string() -> str:
    """The payloads as a CEL string literal (single-quoted, quotes escaped)."""
    return "'" + ALL.replace("\\", "\\\\").replace("'", "\\'") + "'"


def deployment() -> dict:
    """An object for Try-it whose name carries the payloads too."""
    return copy.deepcopy(
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": ALL, "namespace": "default"},
            "spec": {"replicas": 1},
        }
    )
