"""The one entry point for "evaluate these inputs": documents and request values to a result.

The editor's Try-it tab, the API's evaluate endpoint and the CLI's eval command each read their
inputs their own way (form text, JSON body, files) and word their own input errors; from parsed
values on they share this: build the AdmissionRequest, then evaluate the documents against it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from policyeditor.engine.admission.authorizer import MockAuthorizer, parse_entries
from policyeditor.engine.admission.evaluation import EvaluationResult, evaluate
from policyeditor.engine.admission.params import MISSING
from policyeditor.engine.admission.request import AdmissionRequest


@dataclass
class EvaluationInputs:
    """Parsed inputs of one evaluation: the documents, the request's values and the cluster's."""

    documents: list[dict[str, Any]]
    version: str
    object: Any = None
    old_object: Any = None
    operation: str | None = None
    user_info: dict[str, Any] | None = None
    # AdmissionRequest fields in camelCase (subResource, dryRun...)
    overrides: dict[str, Any] | None = None
    params: Any = MISSING  # MISSING: resolve paramRefs; anything else (even None) is the param
    namespace_object: dict[str, Any] | None = None
    authorizer: Any = None  # None: one with no mocked decision (every check NoOpinion)
    resources: list[dict[str, Any]] = field(default_factory=list)
    policy: str | None = None
    binding: str | None = None
    # Default object and oldObject as the API server decodes them (and each mutation's result).
    defaulting: bool = True


def mock_authorizer(entries: list[Any]) -> MockAuthorizer:
    """The mocked authorizer of a list of entries; ValueError names the entry and field at fault."""
    return MockAuthorizer(parse_entries([dict(e) if isinstance(e, dict) else e for e in entries]))


def evaluate_inputs(inputs: EvaluationInputs) -> EvaluationResult:
    """Build the request the inputs describe and evaluate the documents against it.

    Raises InputError when the request's values have the wrong shape (AdmissionRequest.build);
    the evaluation itself never raises.
    """
    request = AdmissionRequest.build(
        **{name: getattr(inputs, name) for name in _REQUEST_FIELDS}, version=inputs.version
    )
    options = {name: getattr(inputs, name) for name in _EVALUATE_OPTIONS}
    if options["authorizer"] is None:
        # The API server always binds the request's authorizer (policy/validating/validator.go,
        # Validate: OptionalVariableBindings.Authorizer); with no mocked decision every check is
        # NoOpinion, as `policyeditor eval` and impact analysis answer it too.
        options["authorizer"] = mock_authorizer([])
    return evaluate(inputs.documents, request, version=inputs.version, **options)


# Which inputs describe the request (AdmissionRequest.build) and which the cluster (evaluate).
_REQUEST_FIELDS = ("object", "old_object", "operation", "user_info", "overrides")
_EVALUATE_OPTIONS = (
    "params",
    "resources",
    "namespace_object",
    "authorizer",
    "policy",
    "binding",
    "defaulting",
)
