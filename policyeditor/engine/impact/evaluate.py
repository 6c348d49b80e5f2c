"""Each object of a dump through admission on CREATE and UPDATE, as the cluster would answer.

A batch's rows: the object's identity, and per operation the revision's outcome (and the
baseline's); a failure or a stopped evaluation is a not-allowed `error` (fail closed).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from policyeditor.engine import admission, schemas
from policyeditor.engine.admission.inputs import mock_authorizer
from policyeditor.engine.impact.batches import Job, Packed, namespace_of, unpack
from policyeditor.engine.impact.cluster import kind_scope_known, namespace_for
from policyeditor.engine.impact.params import without_drafted
from policyeditor.engine.jsontypes import object_at

OPERATIONS = ("CREATE", "UPDATE")
RESULTS = ("allow", "deny", "warn", "audit", "skip", "error")
MESSAGE_CHARS = 500

_NAMESPACE_KIND = {"group": "", "version": "v1", "kind": "Namespace"}

Row = dict[str, Any]


def identity(obj: dict[str, Any]) -> dict[str, str]:
    """Kind, namespace and name of an object ("" where it has none)."""
    metadata = object_at(obj, "metadata")
    namespace, name = metadata.get("namespace"), metadata.get("name")
    kind, api_version = obj.get("kind"), obj.get("apiVersion")
    return {
        "apiVersion": api_version if isinstance(api_version, str) else "",
        "kind": kind if isinstance(kind, str) else "",
        "namespace": namespace if isinstance(namespace, str) else "",
        "name": name if isinstance(name, str) else "",
    }


def outcome(
    result: str, *, allowed: bool, message: str = "", mutated: bool = False, audit: int = 0
) -> dict[str, Any]:
    """One operation's outcome as stored and reported."""
    # `allowed` apart from `result`: an error rejects the request under failurePolicy Fail and
    # lets it through under Ignore, as the API server answers.
    return {
        "result": result,
        "allowed": allowed,
        "message": message[:MESSAGE_CHARS],
        "mutated": mutated,
        "audit": audit,
    }


def evaluate_object(
    documents: list[dict[str, Any]],
    obj: dict[str, Any],
    operation: str,
    *,
    version: str,
    namespaces: Mapping[str, dict[str, Any]],
    defaulting: bool = True,
    resources: Sequence[dict[str, Any]] = (),
    scope_known: bool = True,
) -> dict[str, Any]:
    """One object through admission as the cluster would answer; failures become an `error`."""
    # `namespaces`: the input's Namespace objects by name (those it holds; others stand in bare).
    # `scope_known`: False for a kind no schema or CRD in force describes. kubectl prints
    # metadata.namespace for every namespaced object of a dump, so then the object's own
    # namespace, or none, says where it lives (a cluster-scoped custom resource is not in
    # "default", where the request builder would put an object of an unknown kind).
    overrides = None if scope_known else {"namespace": namespace_of(obj)}
    try:
        if operation == "CREATE":
            request = admission.AdmissionRequest.build(
                object=obj, overrides=overrides, version=version
            )
        else:
            request = admission.AdmissionRequest.build(
                object=obj, old_object=obj, overrides=overrides, version=version
            )
        # A Namespace's own request reads no namespace (policy_dispatcher.go unsets it), though
        # its request names one: the namespace itself.
        where = "" if request.kind == _NAMESPACE_KIND else request.namespace
        result = admission.evaluate(
            documents,
            request,
            version=version,
            namespace_object=namespace_for(documents, where, namespaces.get(where)),
            # Bound for every validation and mutation (cel/library authz): with no rules, the
            # authorizer `policyeditor eval` binds by default, so both agree on an object.
            authorizer=mock_authorizer([]),
            defaulting=defaulting,
            resources=resources,
            # The cluster ignores a policy no binding references (policy_dispatcher.go).
            bound_only=True,
        )
    except Exception as error:  # noqa: BLE001 - one odd object must not stop the run
        # Fail closed: nothing shows the API server would have admitted the request.
        return outcome("error", allowed=False, message=f"{type(error).__name__}: {error}")
    message = result.message or "; ".join(result.warnings)
    # The patch runs from the object as admission saw it (defaulted) to the result, so the
    # fields defaulting filled in do not count as a mutation.
    mutated = result.object is not None and bool(result.patch)
    return outcome(
        result.result,
        allowed=result.allowed,
        message=message,
        mutated=mutated,
        audit=len(result.audit_annotations),
    )


def evaluate_batch(job: Job, objects: list[dict[str, Any]]) -> list[Row]:
    """Rows for `objects`: identity, and per operation the outcome (and the baseline's).

    Module-level and Django-free: this is what an isolated worker runs.
    """
    with schemas.crds_in_force(job.crds):
        return _evaluate_batch(job, objects)


def evaluate_packed(job: Job, batch: Packed) -> list[Row]:
    """evaluate_batch on a packed batch: what an isolated worker runs (it decodes the objects)."""
    return evaluate_batch(job, unpack(batch))


def _evaluate_batch(job: Job, objects: list[dict[str, Any]]) -> list[Row]:
    # An identical baseline gives identical outcomes: do not evaluate everything twice.
    same = job.baseline_is_revision()
    params = without_drafted(job.params, job.documents)
    params_before = without_drafted(job.params, job.baseline) if job.baseline is not None else []
    rows = []
    known: dict[tuple[str, str], bool] = {}  # per apiVersion and kind: kind_scope_known
    for obj in objects:
        row: Row = identity(obj)
        kind = (row["apiVersion"], row["kind"])
        if kind not in known:
            known[kind] = kind_scope_known(obj, job.version)
        for operation in OPERATIONS:
            row[operation] = evaluate_object(
                job.documents,
                obj,
                operation,
                version=job.version,
                namespaces=job.namespaces,
                defaulting=job.defaulting,
                resources=params,
                scope_known=known[kind],
            )
            if job.baseline is not None and same:
                row[f"{operation}_before"] = dict(row[operation])
            elif job.baseline is not None:
                row[f"{operation}_before"] = evaluate_object(
                    job.baseline,
                    obj,
                    operation,
                    version=job.baseline_version or job.version,
                    namespaces=job.namespaces,
                    defaulting=job.defaulting,
                    resources=params_before,
                    scope_known=known[kind],
                )
        rows.append(row)
    return rows


def failed_row(obj: dict[str, Any], job: Job, message: str) -> Row:
    """The row of an object whose evaluation was stopped: a not-allowed error for every operation.

    Not allowed whatever the failurePolicy: the policies the stopped one kept from running may
    have denied the request (failurePolicy Ignore admits an error, never a denial).
    """
    row: Row = identity(obj)
    for operation in OPERATIONS:
        row[operation] = outcome("error", allowed=False, message=message)
        if job.baseline is not None:
            row[f"{operation}_before"] = outcome("error", allowed=False, message=message)
    return row
