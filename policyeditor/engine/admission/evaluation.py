"""The public evaluation entry point: policies + bindings + a request -> the API server's answer.

`evaluate()` runs MutatingAdmissionPolicies first (mutating admission precedes validating
admission in kube-apiserver), then ValidatingAdmissionPolicies on the mutated object, and answers
as the API server would: allowed or a Forbidden status with the denial text and HTTP code,
warnings, audit annotations, the mutated object, and a record of every step per policy.

Extensions beyond the contract (all compatible): `check_match=False` evaluates every selected
policy without matching (the kaptest runner's behaviour, which does not apply matchConstraints);
EvaluationResult also carries `reason` (the status reason), `patch` (a JSON Patch from the input
object to the result), `diff` (unified YAML diff) and `errors` (every error and note, e.g. a
policy version the chosen Kubernetes does not serve).

Where the answer differs from a bare cluster on purpose: without any Namespace among the inputs,
the request's namespace is taken to exist with only its automatic name label; a policy without
a binding is evaluated as if bound (the contract), where the API server would ignore it, unless
`bound_only` asks for the cluster's answer (impact analysis).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from policyeditor.engine.admission.common import EvalContext
from policyeditor.engine.admission.custom_objects import (
    crds_in_force,
    decode_custom_objects,
    invalid_custom_object,
)
from policyeditor.engine.admission.matching import NamespaceSource
from policyeditor.engine.admission.mutating.mutation import text_diff
from policyeditor.engine.admission.mutating.patch import jsonpatch
from policyeditor.engine.admission.mutating.policy import evaluate_mutations
from policyeditor.engine.admission.params import MISSING
from policyeditor.engine.admission.prepare import prepare
from policyeditor.engine.admission.request import AdmissionRequest
from policyeditor.engine.admission.result import EvaluationResult, PolicyOutcome, Step, worst
from policyeditor.engine.admission.validating import policy as validating
from policyeditor.engine.defaulting import default_object
from policyeditor.engine.errors import MemoryExhausted
from policyeditor.engine.jsontypes import object_at
from policyeditor.engine.versions import DEFAULT_VERSION, normalize_version

__all__ = [
    "MISSING",
    "AdmissionRequest",
    "EvaluationResult",
    "PolicyOutcome",
    "Step",
    "evaluate",
    "forbidden_message",
]

_REASON_CODES = {
    "Forbidden": 403,
    "Unauthorized": 401,
    "RequestEntityTooLarge": 413,
    "Invalid": 422,
}


def _namespace_for_cel(
    request: AdmissionRequest,
    namespace_object: dict[str, Any] | None,
    resources: list[dict[str, Any]],
    any_selector_matches: bool = False,
) -> tuple[dict[str, Any] | None, NamespaceSource, str]:
    """(namespaceObject for CEL, where selectors read namespace labels, not-found error)."""
    namespaces = [
        o
        for o in resources
        if isinstance(o, dict)
        and o.get("kind") == "Namespace"
        and o.get("apiVersion", "v1") == "v1"
    ]
    kind = request.kind
    is_namespace = (
        kind.get("kind") == "Namespace"
        and kind.get("group", "") == ""
        and kind.get("version") == "v1"
    )
    if is_namespace or request.resource.get("resource") == "namespaces":
        # A request about a namespace: the namespace exists (the lister has it) as the stored
        # object, which selectors read on DELETE and on subresource requests.
        stored = [o for o in (request.old_object, request.object) if isinstance(o, dict)]
        resources = [*resources, *stored[:1]]
    source = NamespaceSource(
        namespace_object=namespace_object,
        resources=resources,
        any_selector_matches=any_selector_matches,
    )
    if not request.namespace or is_namespace:
        return None, source, ""
    found = source.find(request.namespace)
    if found is None and namespace_object is None and not namespaces:
        # No namespaces were modelled at all: the namespace exists in any real cluster (the
        # request could not be made otherwise), so stand in a bare one with its automatic label.
        found = {
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {
                "name": request.namespace,
                "labels": {"kubernetes.io/metadata.name": request.namespace},
            },
        }
        source = NamespaceSource(
            namespace_object=found,
            resources=resources,
            any_selector_matches=any_selector_matches,
        )
    if found is None:
        return None, source, f'namespaces "{request.namespace}" not found'
    return found, source, ""


def forbidden_message(request: AdmissionRequest, text: str) -> str:
    """admission.NewForbidden: `<resource>[.<group>] "<name>" is forbidden: <text>`."""
    resource = str(request.resource.get("resource") or "")
    group = str(request.resource.get("group") or "")
    qualified = f"{resource}.{group}" if group and resource else resource
    name = request.name
    if not name and isinstance(request.object, dict):
        meta = object_at(request.object, "metadata")
        name = str(meta.get("name") or meta.get("generateName") or "")
    name = name or "Unknown"
    if not qualified:
        return f"forbidden: {text}"
    return f'{qualified} "{name}" is forbidden: {text}'


def _error_result(message: str, request: AdmissionRequest | None = None) -> EvaluationResult:
    return EvaluationResult(
        result="error",
        allowed=False,
        status_code=400,
        reason="BadRequest",
        message=message,
        object=request.object if request is not None else None,
        errors=[message],
    )


def evaluate(
    documents: list[dict[str, Any]],
    request: AdmissionRequest,
    *,
    version: str = DEFAULT_VERSION,
    params: Any = MISSING,
    resources: Sequence[dict[str, Any]] = (),
    namespace_object: dict[str, Any] | None = None,
    authorizer: Any = None,
    policy: str | None = None,
    binding: str | None = None,
    check_match: bool = True,
    any_namespace_selector_matches: bool = False,
    defaulting: bool = True,
    bound_only: bool = False,
) -> EvaluationResult:
    """Evaluate `documents` for `request` as kube-apiserver would; raises only MemoryExhausted."""
    # documents: any mix of VAP/MAP/bindings and other objects (param objects, namespaces). A
    # policy without a binding is evaluated alone as if bound with validationActions [Deny] (MAP:
    # as if bound, no params unless `params` is given). `params` (an inline param object) replaces
    # paramRef resolution; `resources` are further cluster objects for paramRef and selectors.
    # `any_namespace_selector_matches` is kat's convention for a test without a namespace object.
    # `defaulting` (on unless False) defaults object and oldObject as the API server decodes
    # them, and every mutation's result before the next one (engine/defaulting).
    # `bound_only` leaves out the policies no binding references, as the API server does
    # (admission/plugin/policy/generic/policy_dispatcher.go, Dispatch: a policy is evaluated
    # once per binding of it, so one without a binding never is).
    try:
        k8s_version = normalize_version(version)
    except ValueError as exc:
        return _error_result(str(exc), request if isinstance(request, AdmissionRequest) else None)
    if not isinstance(request, AdmissionRequest):
        return _error_result("request must be an AdmissionRequest")
    if not isinstance(documents, list | tuple):
        return _error_result("documents must be a list of Kubernetes objects", request)
    try:
        with crds_in_force([*documents, *(resources or ())]):
            return _evaluate(
                list(documents),
                request,
                k8s_version,
                params,
                list(resources or ()),
                namespace_object,
                authorizer,
                policy,
                binding,
                check_match,
                any_namespace_selector_matches,
                defaulting is not False,
                bound_only,
            )
    except MemoryError as exc:
        # Out of memory outside CEL as well: the call stops (errors.MemoryExhausted), no decision.
        raise MemoryExhausted from exc
    except Exception as exc:  # noqa: BLE001 - the public entry point answers, it does not crash
        return _error_result(
            f"internal error while evaluating: {type(exc).__name__}: {exc}", request
        )


def _evaluate(
    documents: list[dict[str, Any]],
    request: AdmissionRequest,
    version: str,
    params: Any,
    resources: list[dict[str, Any]],
    namespace_object: dict[str, Any] | None,
    authorizer: Any,
    policy: str | None,
    binding: str | None,
    check_match: bool,
    any_namespace_selector_matches: bool,
    defaulting: bool,
    bound_only: bool,
) -> EvaluationResult:
    prepared = prepare(documents, version, policy, binding)
    request, pruned = decode_custom_objects(request)
    cluster = [*prepared.others, *(r for r in resources if isinstance(r, dict))]
    defaulted: dict[str, list[str]] = {}
    if defaulting:
        request, defaulted = _defaulted_request(request, version)
        # A Namespace is stored defaulted (its kubernetes.io/metadata.name label included), so
        # selectors and namespaceObject read it that way.
        cluster = [_defaulted_namespace(o, version) for o in cluster]
        namespace_object = _defaulted_namespace(namespace_object, version)
    cel_namespace, source, ns_error = _namespace_for_cel(
        request, namespace_object, cluster, any_namespace_selector_matches
    )
    ctx = EvalContext(
        request=request,
        version=version,
        resources=cluster,
        namespaces=source,
        namespace_object=cel_namespace,
        authorizer=authorizer,
        params=params,
        check_match=check_match,
        namespace_error=ns_error,
        plans=prepared.plans,
        defaulting=defaulting,
    )
    map_pairs, vap_pairs = prepared.map_pairs, prepared.vap_pairs
    if bound_only:
        # A pair without bindings is a policy no binding references (prepare.pairs).
        map_pairs = [pair for pair in map_pairs if pair[1]]
        vap_pairs = [pair for pair in vap_pairs if pair[1]]
    notes = list(prepared.notes)
    outcomes: list[PolicyOutcome] = []
    if not map_pairs:
        rejected = invalid_custom_object(request, request.object)
        if rejected is not None:
            rejected.warnings = pruned
            return rejected

    final_object = request.object
    if map_pairs:
        final_object, mutated = evaluate_mutations(map_pairs, ctx)
        outcomes.extend(mutated)
        if any(o.denials for o in mutated):
            result = _respond(request, final_object, outcomes, notes)
            return _with_defaults(result, defaulting, defaulted)
        rejected = invalid_custom_object(request, final_object)
        if rejected is not None:
            rejected.warnings = pruned
            rejected.policies = outcomes
            return rejected
    if vap_pairs:
        seen = request
        if final_object != request.object:
            seen = request.with_objects(final_object, request.old_object)
        ctx.request = seen
        for pol, bindings in vap_pairs:
            outcomes.extend(validating.evaluate_policy(pol, bindings, ctx))
    result = _respond(request, final_object, outcomes, notes)
    result.warnings = [*pruned, *result.warnings]
    return _with_defaults(result, defaulting, defaulted)


def _with_defaults(
    result: EvaluationResult, defaulting: bool, defaulted: dict[str, list[str]]
) -> EvaluationResult:
    result.defaulting, result.defaulted = defaulting, defaulted
    return result


def _defaulted_request(
    request: AdmissionRequest, version: str
) -> tuple[AdmissionRequest, dict[str, list[str]]]:
    """The request as admission sees it: object and oldObject decoded (defaulted) by the server.

    kubernetes/kubernetes staging/src/k8s.io/apiserver/pkg/endpoints/handlers/create.go and
    update.go decode the body with the scheme's defaulting codec before admission runs; the old
    object comes from storage, where it was stored defaulted (defaulting it again changes nothing
    a cluster would show).
    """
    new = default_object(request.object, version)
    # An UPDATE that changes nothing (impact analysis asks that of every object) has one object
    # twice: default it once. Defaulting copies on write, so the two stay independent.
    same = request.old_object is request.object and request.object is not None
    old = new if same else default_object(request.old_object, version)
    paths = {key: d.paths for key, d in (("object", new), ("oldObject", old)) if d.paths}
    if not paths:
        return request, {}
    return request.with_objects(new.object, old.object), paths


def _defaulted_namespace(obj: Any, version: str) -> Any:
    if isinstance(obj, dict) and obj.get("kind") == "Namespace":
        return default_object(obj, version).object
    return obj


def _respond(
    request: AdmissionRequest, final_object: Any, outcomes: list[PolicyOutcome], notes: list[str]
) -> EvaluationResult:
    denials = [d for o in outcomes for d in o.denials]
    # The API server's warning recorder drops repeats of the same text.
    warnings = list(dict.fromkeys(w for o in outcomes for w in o.warnings))
    annotations = validating.audit_annotations(outcomes)
    errors = [e for o in outcomes for e in o.errors]
    result = worst([o.result for o in outcomes])
    if any("is not served by Kubernetes" in note for note in notes):
        result = worst([result, "error"])  # a document of the input could not take part
    patch = jsonpatch.diff_patch(request.object, final_object) if request.object is not None else []
    diff = text_diff(request.object, final_object) if final_object != request.object else ""
    fatal = [d for d in denials if d.get("fatal")]
    # What every answer carries, whatever its status.
    shared: dict[str, Any] = {
        "warnings": warnings,
        "audit_annotations": annotations,
        "object": final_object,
        "policies": outcomes,
        "patch": patch,
        "diff": diff,
        "errors": errors + notes,
    }
    if fatal:
        # A status error (namespace NotFound, internal decode error) is returned as is.
        return EvaluationResult(
            result="error",
            allowed=False,
            status_code=int(fatal[0].get("code", 404)),
            reason=str(fatal[0].get("reason") or "NotFound"),
            message=fatal[0]["message"],
            **shared,
        )
    if denials:
        first = denials[0]
        reason = first.get("reason") or "Invalid"
        is_map = bool(first.get("mutating"))
        code = 403 if is_map else _REASON_CODES.get(reason, 422)
        # VAP: one cause with the denial text; MAP: one cause per policy error that failed.
        causes = (
            [d["message"] for d in denials if d.get("mutating")] if is_map else [first["message"]]
        )
        return EvaluationResult(
            # The answer is an error when the denial that answers came from a failure.
            result="error" if first.get("error") else "deny",
            allowed=False,
            status_code=code,
            reason=reason,
            message=first["message"] if is_map else forbidden_message(request, first["message"]),
            causes=causes,
            **shared,
        )
    return EvaluationResult(
        result=result,
        allowed=True,
        status_code=200,
        message="",
        **shared,
    )
