"""The engine work behind validate, evaluate and cel, as plain functions run in the isolation pool."""

# Nothing here imports Django: the functions run in engine worker processes (see
# policyeditor.engine.isolation), take and return picklable JSON-shaped values, and report bad
# input as {"problem": {...}} instead of raising, because exceptions cross the process boundary
# only as text.

from __future__ import annotations

import base64
import logging
import math
from typing import Any

from policyeditor.engine.errors import FieldError, InputError
from policyeditor.engine.jsontypes import object_at
from policyeditor.engine.objects import ADMISSION_KINDS, kind_of

logger = logging.getLogger(__name__)


def jsonable(value: Any) -> Any:
    """Values JSON cannot carry (NaN, infinities, bytes) written as protojson writes them."""
    # The JSON renderer would otherwise fail on what a CEL result may hold.
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, bytes | bytearray):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, dict):
        return {_key(key): jsonable(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(item) for item in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


def _key(key: Any) -> str:
    """A map key as JSON writes it (CEL maps may have int, uint or bool keys)."""
    if isinstance(key, bool):
        return "true" if key else "false"
    return key if isinstance(key, str) else str(key)


def _problem(detail: str, *, status: int = 400, errors: list[dict] | None = None) -> dict:
    return {"problem": {"status": status, "detail": detail, "errors": errors or []}}


def _crd_registry(documents: list[dict] | None) -> tuple[Any, dict[str, Any] | None]:
    """(the CRD registry of a request's `crds`, or the 400 problem naming the bad CRD)."""
    from policyeditor.engine import schemas

    if not documents:
        return None, None
    try:
        return schemas.load_crds(documents), None
    except schemas.CrdError as exc:
        errors = [{"path": e.path, "message": e.message} for e in exc.errors]
        return None, _problem(f"crds: {exc}", errors=errors)


def _located(documents: list[dict], index: int, error: FieldError) -> dict[str, Any]:
    """A FieldError with the document it belongs to (index, kind, name)."""
    doc = documents[index] if 0 <= index < len(documents) else {}
    metadata = object_at(doc, "metadata")
    name = metadata.get("name") or metadata.get("generateName") or ""
    return {
        "document": index,
        "kind": kind_of(doc),
        "name": name if isinstance(name, str) else "",
        "path": error.path,
        "message": error.message,
    }


def validate_bundle(
    documents: list[dict], version: str, static: bool = False, crds: list[dict] | None = None
) -> dict[str, Any]:
    """API-server validation (with CEL compilation) of every document, plus warnings."""
    from policyeditor.engine import schemas

    registry, problem = _crd_registry(crds)
    if problem is not None:
        return problem
    with schemas.using_crds(registry):
        return _validate_bundle(documents, version, static)


def _validate_bundle(documents: list[dict], version: str, static: bool) -> dict[str, Any]:
    from policyeditor.engine import validation

    try:
        errors = validation.validate_documents(documents, version=version, static=static)
        warnings = [
            (index, warning)
            for index, doc in enumerate(documents)
            if doc.get("kind") in ADMISSION_KINDS
            for warning in validation.warnings_for(doc, version=version, static=static)
        ]
        if static:
            warnings += [(0, w) for w in validation.feature_problems(version)[1]]
    except InputError as exc:
        return _problem(str(exc))
    return {
        "valid": not errors,
        "kubernetesVersion": version,
        "errors": [_located(documents, index, error) for index, error in errors],
        "warnings": [_located(documents, index, warning) for index, warning in warnings],
    }


def _authorizer(entries: list[dict] | None):
    """A mocked authorizer from the request's entries (None when there are none)."""
    if not entries:
        return None
    from policyeditor.engine.admission.inputs import mock_authorizer

    return mock_authorizer(entries)


def evaluate_bundle(payload: dict[str, Any]) -> dict[str, Any]:
    """Build the admission request and evaluate the documents against it."""
    from policyeditor.engine import schemas

    registry, problem = _crd_registry(payload.get("crds"))
    if problem is not None:
        return problem
    with schemas.using_crds(registry):
        return _evaluate_bundle(payload)


def _evaluate_bundle(payload: dict[str, Any]) -> dict[str, Any]:
    from policyeditor.engine.admission.inputs import EvaluationInputs, evaluate_inputs

    version = payload["kubernetesVersion"]
    try:
        authorizer = _authorizer(payload.get("authorizer"))
    except ValueError as exc:  # parse_entries names the entry and field at fault
        return _problem(str(exc))
    inputs = EvaluationInputs(
        payload["documents"],
        version,
        object=payload.get("object"),
        old_object=payload.get("oldObject"),
        operation=payload.get("operation"),
        user_info=payload.get("userInfo"),
        overrides=payload.get("request"),
        namespace_object=payload.get("namespaceObject"),
        authorizer=authorizer,
        resources=payload.get("resources") or [],
        policy=payload.get("policy"),
        binding=payload.get("binding"),
        defaulting=payload.get("defaulting", True) is not False,
    )
    if "params" in payload:
        inputs.params = payload["params"]
    try:
        result = evaluate_inputs(inputs)
    except InputError as exc:
        return _problem(str(exc))
    body = jsonable(result.to_dict())
    body["kubernetesVersion"] = version
    return body


def evaluate_cel(payload: dict[str, Any]) -> dict[str, Any]:
    """Compile and evaluate one expression; compile and runtime errors are part of the answer."""
    from policyeditor.engine import schemas
    from policyeditor.engine.cel.crd_notes import custom_resource_notes

    registry, problem = _crd_registry(payload.get("crds"))
    if problem is not None:
        return problem
    with schemas.using_crds(registry):
        body = _evaluate_cel(payload)
        if registry and "problem" not in body:
            version = payload["kubernetesVersion"]
            body["warnings"] = [
                *body["warnings"],
                *custom_resource_notes(
                    payload["expression"], payload.get("object"), payload.get("params"), version
                ),
            ]
    return body


def _evaluate_cel(payload: dict[str, Any]) -> dict[str, Any]:
    from policyeditor.engine import cel

    version = payload["kubernetesVersion"]
    context = cel.Context(payload.get("context") or cel.Context.VALIDATION)
    env_type = cel.EnvType(payload.get("envType") or cel.EnvType.NEW_EXPRESSIONS)
    variables = [(item["name"], item["expression"]) for item in payload.get("variables") or []]
    try:
        authorizer = _authorizer(payload.get("authorizer"))
    except ValueError as exc:
        return _problem(str(exc))
    mutating = context == cel.Context.MUTATION
    # `params` given, even as null, declares it (a policy with paramKind and no param object).
    has_params = "params" in payload
    try:
        compiled_vars, declarations = cel.compile_variables(
            variables,
            version=version,
            declarations=cel.Declarations(has_params=has_params, mutating=mutating),
            env_type=env_type,
        )
        compiled = cel.compile_expression(
            payload["expression"],
            context=context,
            version=version,
            declarations=declarations,
            env_type=env_type,
        )
    except InputError as exc:
        return _problem(str(exc))
    body: dict[str, Any] = {
        "value": None,
        "error": None,
        "errors": [_issue(item) for item in compiled.errors],
        "cost": None,
        "estimatedCost": compiled.estimated_cost,
        "warnings": list(compiled.warnings),
        "kubernetesVersion": version,
    }
    if not compiled.ok:
        body["error"] = body["errors"][0] if body["errors"] else None
        return body
    activation = cel.Activation.of(payload, authorizer)
    cel.VariableResolver(compiled_vars).bind(activation)
    result = compiled.program.evaluate(activation)
    body["value"] = jsonable(result.value)
    body["cost"] = result.cost
    if result.error is not None:
        body["error"] = _issue(result.error)
        body["errors"] = [body["error"]]
    return body


def _issue(issue: Any) -> dict[str, Any]:
    """A CelIssue as JSON, with the full cel-go text as the API server would print it."""
    data = issue.to_dict()
    data["text"] = str(issue)
    return data
