"""Custom resources in an evaluation: CRDs among the inputs, pruning on decode, schema validation.

kube-apiserver's CRD handler (kubernetes/kubernetes staging/src/k8s.io/apiextensions-apiserver/
pkg/apiserver/customresource_handler.go) decodes a custom resource with its CRD's structural
schema, pruning unknown fields, runs mutating admission, validates the result against the schema
(the strategy's Validate, before validating admission) and answers 422 Invalid when it fails.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from policyeditor.engine import schemas
from policyeditor.engine.admission.request import AdmissionRequest
from policyeditor.engine.admission.result import EvaluationResult
from policyeditor.engine.cel import crd_rule_evaluation
from policyeditor.engine.schemas.objects import check_custom_object


def _crds_among(objects: Iterable[Any]) -> list[dict[str, Any]]:
    return [
        o
        for o in objects
        if isinstance(o, dict)
        and o.get("kind") == schemas.crds.CRD_KIND
        and o.get("apiVersion") == schemas.crds.CRD_API_VERSION
    ]


@contextmanager
def crds_in_force(objects: Iterable[Any]) -> Iterator[None]:
    """The CRD layer in force, plus the usable CRDs found among the evaluation's inputs."""
    # CRDs handed in as cluster objects were always read for their scope and MAP schema; a CRD
    # the API server would refuse is left out here (it never serves its kind).
    found = []
    for document in _crds_among(objects):
        try:
            found.append(schemas.parse_crd(document))
        except schemas.CrdError:
            continue
    if not found:
        yield
        return
    current = schemas.active_crds()
    base = current if isinstance(current, schemas.CrdRegistry) else None
    try:
        registry = schemas.merge_registries(base, schemas.CrdRegistry(found))
    except schemas.CrdError:
        registry = base or schemas.CrdRegistry(found)
    with schemas.using_crds(registry):
        yield


def _schema_of(obj: Any) -> Any:
    group, _, version = str(obj.get("apiVersion") or "").rpartition("/")
    return schemas.schema_for(group, version, str(obj.get("kind") or ""))


def decode_custom_objects(request: AdmissionRequest) -> tuple[AdmissionRequest, list[str]]:
    """The request with object and oldObject pruned as the CRD handler decodes them."""
    warnings: list[str] = []
    twin = request
    for attr in ("object", "old_object"):
        original = getattr(request, attr)
        check = check_custom_object(original)
        # Pruned fields or defaults filled in: admission sees the decoded object.
        if check is None or (not check.warnings and check.object == original):
            continue
        if twin is request:
            twin = copy.copy(request)
        setattr(twin, attr, check.object)
        if attr == "object":
            warnings.extend(check.warnings)
    return twin, warnings


def invalid_custom_object(request: AdmissionRequest, obj: Any) -> EvaluationResult | None:
    """The 422 answer when the object to store breaks its CRD schema (CREATE/UPDATE), or None."""
    if request.operation not in ("CREATE", "UPDATE") or request.sub_resource:
        return None
    check = check_custom_object(obj)
    if check is None:
        return None
    check.errors += crd_rule_evaluation.errors_after_schema(
        check.errors,
        check.object,
        _schema_of(obj),
        request.old_object if request.operation == "UPDATE" else None,
    )
    if not check.errors:
        return None
    group, _, _version = str(obj.get("apiVersion") or "").rpartition("/")
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    message = check.message(str(obj.get("kind") or ""), group, str(meta.get("name") or ""))
    return EvaluationResult(
        result="error",
        allowed=False,
        status_code=422,
        reason="Invalid",
        message=message,
        object=obj,
        causes=[str(e) for e in check.errors],
        errors=[message],
    )
