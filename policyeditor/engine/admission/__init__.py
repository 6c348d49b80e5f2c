"""Admission evaluation: requests, matching, params, CEL bindings and the API server's answer."""

from policyeditor.engine.admission.evaluation import (
    MISSING,
    AdmissionRequest,
    EvaluationResult,
    PolicyOutcome,
    Step,
    evaluate,
    forbidden_message,
)
from policyeditor.engine.admission.prepare import unbound_policies

__all__ = [
    "AdmissionRequest",
    "EvaluationResult",
    "MISSING",
    "PolicyOutcome",
    "Step",
    "evaluate",
    "forbidden_message",
    "unbound_policies",
]
