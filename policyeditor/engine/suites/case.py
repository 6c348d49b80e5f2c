"""Running one test case: validate its policies (once per set), evaluate, compare, summarise."""

from __future__ import annotations

import copy
from contextlib import AbstractContextManager, nullcontext
from dataclasses import replace
from typing import Any

from policyeditor.engine.admission.result import EvaluationResult
from policyeditor.engine.defaulting import default_object
from policyeditor.engine.jsontypes import object_at
from policyeditor.engine.objects import BINDING_KINDS, POLICY_KINDS, name_of
from policyeditor.engine.suites.check import check
from policyeditor.engine.suites.coverage import trace
from policyeditor.engine.suites.formats.kyverno_results import NOT_VALIDATED, grade
from policyeditor.engine.suites.model import (
    LAYOUT_KAPTEST,
    LAYOUT_KAT,
    LAYOUT_KYVERNO,
    UNSET,
    CaseResult,
    Expectation,
    TestCase,
)
from policyeditor.engine.suites.vacuous import vacuous_reason


def run_case(case: TestCase, *, coverage: bool = False) -> CaseResult:
    """Evaluate one case and compare; never raises (an engine failure is a failed case).

    `coverage`: keep the trace of what the evaluation evaluated (suites/coverage.py).
    """
    if case.error:
        return CaseResult(case=case, passed=False, failures=[case.error], notes=list(case.notes))
    try:
        with crds_for(case):
            result = _evaluate_case(case, coverage)
    except Exception as error:
        result = CaseResult(
            case=case,
            passed=False,
            failures=[f"evaluation failed: {type(error).__name__}: {error}"],
        )
    result.notes = [*case.notes, *result.notes]
    return result


def crds_for(case: TestCase) -> AbstractContextManager[None]:
    """The case's CRDs layered over those already in force (`policyeditor test --crd`)."""
    from policyeditor.engine import schemas

    if case.crds is None:
        return nullcontext()
    current = schemas.active_crds()
    base = current if isinstance(current, schemas.CrdRegistry) else None
    return schemas.using_crds(schemas.merge_registries(base, case.crds))


def _evaluate_case(case: TestCase, coverage: bool) -> CaseResult:
    from policyeditor.engine import validation, versions
    from policyeditor.engine.admission.authorizer import MockAuthorizer, parse_entries
    from policyeditor.engine.errors import InputError

    try:
        version = versions.normalize_version(case.version)
    except ValueError as error:
        return CaseResult(case=case, passed=False, failures=[str(error)])
    # kaptest checks manifests against the schema only, and its own examples rely on it (a
    # messageExpression adding a string to an int variable): API-server validation is ours alone.
    relevant = _relevant_documents(case)
    problems = [] if case.cel_only else _validation_problems(relevant, version, validation)
    if problems:
        return CaseResult(
            case=case,
            passed=False,
            failures=["the policies are not valid:", *problems],
            notes=[NOT_VALIDATED] if case.layout == LAYOUT_KYVERNO else [],
        )
    from policyeditor.engine import admission

    documents = _cel_only(case.documents, case.policy) if case.cel_only else case.documents
    if case.layout == "policytest" and case.binding is None:
        documents = [d for d in documents if d.get("kind") not in BINDING_KINDS]
    try:
        request = admission.AdmissionRequest.build(
            object=case.object,
            old_object=case.old_object,
            operation=case.operation,
            user_info=case.user_info,
            overrides=case.request or None,
            version=version,
        )
    except (InputError, ValueError) as error:
        return CaseResult(
            case=case, passed=False, failures=[f"cannot build the admission request: {error}"]
        )
    kwargs: dict[str, Any] = {"version": version, "resources": list(case.resources)}
    if case.params is not UNSET:
        kwargs["params"] = case.params
    if case.namespace_object is not UNSET:
        kwargs["namespace_object"] = case.namespace_object
    elif case.layout == LAYOUT_KAT:
        # kat matches every namespaceSelector when a test gives no namespace object
        # (zemanlx/kat internal/evaluator/match.go, matchesNamespaceSelector).
        kwargs["any_namespace_selector_matches"] = True
    # Without mocks every check gets NoOpinion, as for a user RBAC says nothing about; leaving
    # `authorizer` unbound would make any check an evaluation error instead.
    kwargs["authorizer"] = MockAuthorizer(parse_entries(case.authorizer or []))
    if case.cel_only:
        kwargs["check_match"] = False  # kaptest does not apply matchConstraints
    outcome = admission.evaluate(
        documents,
        request,
        policy=case.policy,
        binding=case.binding,
        defaulting=case.defaulting,
        **kwargs,
    )
    expect, input_object = expectation_for(case, version)
    failures = check(
        expect, outcome, input_object=input_object, kaptest=case.layout == LAYOUT_KAPTEST
    )
    notes: list[str] = []
    if case.layout == LAYOUT_KYVERNO:
        # the Kyverno CLI's pass/fail/skip per policy, and where Kyverno would answer otherwise
        more, notes = grade(case, outcome, input_object)
        failures += more
    mock = kwargs["authorizer"]
    if failures and case.authorizer is not None:
        # a mock that does not match the check asked is the usual reason such a case fails
        asked = [_describe_check(attributes) for attributes in mock.checks] or ["none"]
        failures.append("authorization checks asked: " + "; ".join(asked))
    return CaseResult(
        case=case,
        passed=not failures,
        failures=failures,
        outcome=_summary(outcome),
        vacuous="" if failures else vacuous_reason(expect, outcome),
        trace=trace(documents, outcome) if coverage else None,
        notes=notes,
    )


def expectation_for(case: TestCase, version: str) -> tuple[Expectation, Any]:
    """What a case's outcome is checked against: its expectation and the input object.

    With defaulting on, the output is the defaulted object, so "did a policy mutate it" compares
    it with the defaulted input, and an expected object is defaulted as the cluster would store it
    (a gold file written with or without the defaulted fields matches either way).
    """
    if not case.defaulting:
        return case.expect, case.object
    expect = case.expect
    if expect.object is not UNSET:
        expect = replace(expect, object=default_object(expect.object, version).object)
    return expect, default_object(case.object, version).object


def _summary(outcome: EvaluationResult) -> dict[str, Any]:
    """The response fields of EvaluationResult.to_dict(), the part of an outcome reports print."""
    # The object, patch, diff and per-policy steps are left out: no report format shows them,
    # converting them cost more than the evaluation's bookkeeping, and a run keeps every result.
    return {
        "result": outcome.result,
        "allowed": outcome.allowed,
        "statusCode": outcome.status_code,
        "reason": outcome.reason,
        "message": outcome.message,
        "warnings": list(outcome.warnings),
        "auditAnnotations": dict(outcome.audit_annotations),
        "errors": list(outcome.errors),
        "causes": list(outcome.causes),
    }


# (ids of the documents, version) -> (the documents, their problems); holding the documents keeps
# their ids from being reused by other objects while the entry lives.
_VALIDATION_CACHE: dict[tuple[tuple[int, ...], str], tuple[list[dict[str, Any]], list[str]]] = {}


def _describe_check(attributes: dict[str, Any]) -> str:
    keys = ("verb", "apiGroup", "resource", "subresource", "namespace", "name", "path")
    return " ".join(f"{k}={attributes[k]!r}" for k in keys if attributes.get(k) not in (None, ""))


def _relevant_documents(case: TestCase) -> list[dict[str, Any]]:
    """The documents a case evaluates: its policy and the bindings it goes through (else all)."""
    if case.policy is None:
        return case.documents
    bindings = []
    for doc in case.documents:
        spec = object_at(doc, "spec")
        if doc.get("kind") not in BINDING_KINDS or spec.get("policyName") != case.policy:
            continue
        if case.binding is not None and name_of(doc) == case.binding:
            bindings.append(doc)
        elif case.binding is None and case.layout != "policytest":
            bindings.append(doc)  # a policytest case without `binding` evaluates the policy alone
    policies = [
        d for d in case.documents if d.get("kind") in POLICY_KINDS and name_of(d) == case.policy
    ]
    return policies + bindings


def _validation_problems(
    documents: list[dict[str, Any]], version: str, validation: Any
) -> list[str]:
    """API-server validation of the documents a case uses (once per set and version)."""
    key = (tuple(id(d) for d in documents), version)
    cached = _VALIDATION_CACHE.get(key)
    if cached is None or any(a is not b for a, b in zip(cached[0], documents, strict=True)):
        problems = []
        for index, error in validation.validate_documents(documents, version=version):
            doc = documents[index] if 0 <= index < len(documents) else {}
            problems.append(f"{doc.get('kind', 'document')} {name_of(doc)!r}: {error}")
        if len(_VALIDATION_CACHE) > 256:
            _VALIDATION_CACHE.clear()
        _VALIDATION_CACHE[key] = (list(documents), problems)
    return _VALIDATION_CACHE[key][1]


def _cel_only(documents: list[dict[str, Any]], policy: str | None) -> list[dict[str, Any]]:
    """kaptest: the named policy alone, under failurePolicy Fail (kaptest reports errors as such)."""
    result = []
    for doc in documents:
        if doc.get("kind") in POLICY_KINDS and (doc.get("metadata") or {}).get("name") == policy:
            doc = copy.deepcopy(doc)
            spec = doc.setdefault("spec", {})
            spec["failurePolicy"] = "Fail"
            result.append(doc)
        elif doc.get("kind") not in POLICY_KINDS:
            result.append(doc)
    return result
