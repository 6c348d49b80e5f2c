"""Saved cases as a kaptest manifest: `kaptest.yaml` with `policies.yaml` and `resources.yaml`.

The layout is pfnet/kaptest's (its README and internal/tester manifest): the policies and the
objects live in files the manifest lists, and each test names its object, old object, param and
expected object by kind and name in the resources. kaptest evaluates the CEL of a policy only
(no matchConstraints, failurePolicy Fail), so a case expecting skip is exported only when the
policy's matchConditions can give it; kaptest has no warn, audit, authorizer, request fields or
Kubernetes version, and one object per kind, namespace and name: other cases are left out.
"""

from __future__ import annotations

import copy
from typing import Any

from policyeditor.engine.manifests.dump import dump_documents
from policyeditor.engine.objects import MAP, name_of, namespace_of
from policyeditor.engine.suites.exports.common import (
    CaseInput,
    Export,
    bare_namespace,
    case_inputs,
    expectation,
    request_namespace,
    unported_options,
)

EXPECTS = {"allow": "admit", "deny": "deny", "skip": "skip", "error": "error"}
HOW = (
    "A kaptest manifest: run it with `kaptest run kaptest.yaml` or `policyeditor test kaptest.yaml` "
    "(kaptest evaluates the policies' CEL only, without matchConstraints, and carries no "
    "Kubernetes version)."
)


class _Resources:
    """The objects of resources.yaml, one per (apiVersion, kind, namespace, name)."""

    def __init__(self) -> None:
        self.objects: dict[tuple[str, str, str, str], dict[str, Any]] = {}

    def add(
        self, obj: dict[str, Any], pending: dict[tuple[str, str, str, str], dict[str, Any]]
    ) -> dict[str, Any]:
        key = (str(obj.get("apiVersion")), str(obj.get("kind")), namespace_of(obj), name_of(obj))
        known = self.objects.get(key, pending.get(key))
        if known is not None and known != obj:
            raise ValueError(
                f"another case has a different {obj.get('kind')} {name_of(obj)!r}: kaptest names "
                "objects by kind and name"
            )
        pending[key] = obj
        ref = {"kind": obj.get("kind"), "name": name_of(obj)}
        if namespace_of(obj):
            ref["namespace"] = namespace_of(obj)
        return ref


def export_kaptest(
    documents: list[dict[str, Any]], cases: list[dict[str, Any]], version: str, name: str
) -> Export:
    """The kaptest manifest of `cases` under `<name>/`."""
    export = Export()
    resources = _Resources()
    suites: dict[tuple[str, str, str | None], list[dict[str, Any]]] = {}
    policies: list[dict[str, Any]] = []
    for item in case_inputs(documents, cases, version):
        pending: dict[tuple[str, str, str, str], dict[str, Any]] = {}
        try:
            policy, binding, test = _test(item, resources, pending)
        except ValueError as error:
            export.left_out.append(f"{item.label}: {error}")
            continue
        resources.objects.update(pending)
        for doc in (policy, binding):
            if doc is not None and not any(doc is p for p in policies):
                policies.append(doc)
        family = "map" if policy.get("kind") == MAP else "vap"
        key = (family, name_of(policy), name_of(binding) if binding else None)
        suites.setdefault(key, []).append(test)
        _weakened(item.case, item.label, export)
    manifest: dict[str, Any] = {
        "policies": ["policies.yaml"],
        "resources": ["resources.yaml"],
    }
    for family, key_name in (("vap", "vapTestSuites"), ("map", "mapTestSuites")):
        entries = []
        for (kind, policy_name, binding_name), tests in suites.items():
            if kind != family:
                continue
            entry: dict[str, Any] = {"policy": policy_name}
            if binding_name:
                entry["binding"] = binding_name
            entry["tests"] = tests
            entries.append(entry)
        if entries:
            manifest[key_name] = entries
    if suites:
        export.files[f"{name}/kaptest.yaml"] = dump_documents([manifest])
        export.files[f"{name}/policies.yaml"] = dump_documents(policies)
        export.files[f"{name}/resources.yaml"] = dump_documents(list(resources.objects.values()))
    export.files[f"{name}/README.md"] = export.readme(f"{name}: kaptest manifest", HOW)
    return export


def _test(
    item: CaseInput, resources: _Resources, pending: dict[tuple[str, str, str, str], dict[str, Any]]
) -> tuple[dict[str, Any], dict[str, Any] | None, dict[str, Any]]:
    case, parts = item.case, item.parts()
    for key, why in (
        ("authorizer", "kaptest has no authorizer mocks"),
        ("request", "kaptest has no request fields"),
    ):
        if case.get(key):
            raise ValueError(why)
    policy, binding, expect = parts.policy, parts.binding, parts.expect
    spec = policy.get("spec") or {}
    result = expect.get("result")
    test: dict[str, Any] = {}
    if parts.mutating and "object" in expect and result in (None, "allow"):
        test["expect"] = "mutate"
    elif result in EXPECTS:
        test["expect"] = EXPECTS[result]
    else:
        raise ValueError(f"kaptest has no {result or 'missing'} expectation")
    if result == "skip" and not spec.get("matchConditions"):
        raise ValueError(
            "kaptest does not apply matchConstraints or bindings: only matchConditions can skip"
        )
    obj, old = case.get("object"), case.get("oldObject")
    if case.get("operation") and case["operation"] != (
        "UPDATE" if obj and old else "CREATE" if obj else "DELETE"
    ):
        raise ValueError("kaptest infers the operation from the objects given")
    if isinstance(obj, dict):
        test["object"] = resources.add(obj, pending)
    if isinstance(old, dict):
        test["oldObject"] = resources.add(old, pending)
    if "object" not in test and "oldObject" not in test:
        raise ValueError("the case has no object")
    if spec.get("paramKind"):
        test["param"] = _param(case, binding, item.documents, resources, pending)
    namespace = request_namespace(obj if isinstance(obj, dict) else old, item.version)
    if namespace:
        namespace_object = case.get("namespaceObject") or bare_namespace(namespace)
        if name_of(namespace_object) != namespace:
            raise ValueError("kaptest finds the namespace object by the object's namespace")
        resources.add(namespace_object, pending)
    if case.get("userInfo"):
        info = dict(case["userInfo"])
        if "username" in info:
            info["name"] = info.pop("username")
        test["userInfo"] = info
    if test["expect"] == "mutate":
        expected = copy.deepcopy(expect["object"])
        # kaptest renames the expected object after the input one (disableNameOverwrite false)
        expected.setdefault("metadata", {})["name"] = (
            f"{name_of(expected) or 'object'}-expected-{item.index}"
        )
        test["expectObject"] = resources.add(expected, pending)
    return policy, binding, test


def _param(
    case: dict[str, Any],
    binding: dict[str, Any] | None,
    documents: list[dict[str, Any]],
    resources: _Resources,
    pending: dict[tuple[str, str, str, str], dict[str, Any]],
) -> dict[str, Any]:
    params = case.get("params")
    if isinstance(params, dict):
        if not name_of(params):
            raise ValueError("kaptest names the param object: give the inline params a name")
        resources.add(params, pending)
        return {"name": name_of(params)}
    ref = ((binding or {}).get("spec") or {}).get("paramRef") or {}
    if not ref.get("name"):
        raise ValueError("kaptest needs a param object named by the case or by paramRef.name")
    found = [
        d
        for d in documents
        if name_of(d) == ref["name"]
        and d.get("kind") not in ("ValidatingAdmissionPolicy", "MutatingAdmissionPolicy")
    ]
    for doc in found:
        resources.add(doc, pending)
    return {"name": ref["name"]}


def _weakened(case: dict[str, Any], label: str, export: Export) -> None:
    expect = expectation(case)
    lost: list[str] = [
        key for key in ("messages", "warnings", "auditAnnotations", "allowed") if key in expect
    ]
    lost += unported_options(case)
    if lost:
        export.weakened.append(f"{label}: {', '.join(lost)} (a kaptest test cannot say so)")
