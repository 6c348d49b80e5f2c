"""Saved cases as Kyverno CLI tests: one directory per case, each a `kyverno-test.yaml` with its files.

The layout is the one `kyverno test DIR` reads (kyverno/kyverno cmd/cli/kubectl-kyverno/apis/
v1alpha1 test.go and test_result.go, values.go, user_info.go; the Kyverno docs' "kyverno test"
page): `policies` and `resources` files beside the test, `variables` a Values file whose
`namespaceSelector` gives the namespace's labels, `userinfo` a UserInfo file, one `results` entry
naming the policy, the resource, its kind and the expected result (pass, fail, skip, error) and, for
a MAP, the expected object in `patchedResources`. Each case gets its own directory because a test
has one user and one set of namespace labels. The CLI sends every resource as a CREATE without
authorizer, request fields or inline params: cases that need them are left out.
"""

from __future__ import annotations

from typing import Any

from policyeditor.engine.manifests.dump import dump_documents
from policyeditor.engine.objects import name_of, namespace_of
from policyeditor.engine.suites.exports.common import (
    CaseInput,
    Export,
    other_objects,
    request_namespace,
    slug,
    unported_options,
)

# PolicyTest result -> the PolicyReport result Kyverno's CLI reports (a failed validation is
# `fail` whatever the binding's validationActions do with it).
RESULTS = {"allow": "pass", "deny": "fail", "warn": "fail", "audit": "fail", "skip": "skip"}
RESULTS["error"] = "error"
_UNSUPPORTED = {
    "oldObject": "Kyverno CLI tests send only CREATE requests (no oldObject)",
    "request": "Kyverno CLI tests have no request fields",
    "authorizer": "Kyverno CLI tests have no authorizer mocks",
    "params": "Kyverno CLI tests take params only through a binding's paramRef (paramResources)",
}
HOW = (
    "Kyverno CLI tests, one directory per case: run them with `kyverno test .` or "
    "`policyeditor test .` (Kyverno CLI tests carry no Kubernetes version: policyeditor runs them "
    "at the newest it knows)."
)


def case_files(item: CaseInput, export: Export) -> tuple[str, dict[str, str]]:
    """The folder of one case and its files (file name -> text); ValueError: left out."""
    case, label, parts = item.case, item.label, item.parts()
    for key, why in _UNSUPPORTED.items():
        if case.get(key):
            raise ValueError(why)
    operation = case.get("operation") or "CREATE"
    obj = case.get("object")
    if operation != "CREATE" or not isinstance(obj, dict):
        raise ValueError("Kyverno CLI tests send only CREATE requests of an object")
    policy, binding, expect, mutating = parts.policy, parts.binding, parts.expect, parts.mutating
    result = expect.get("result") or ("allow" if mutating and "object" in expect else None)
    if result not in RESULTS:
        raise ValueError("the case expects no result (expect.result)")
    _weakened(case, expect, label, export)
    files: dict[str, str] = {
        "policy.yaml": dump_documents([policy] + ([binding] if binding else [])),
        "resource.yaml": dump_documents([obj]),
    }
    resource = name_of(obj)
    if namespace_of(obj):
        resource = f"{namespace_of(obj)}/{resource}"
    entry: dict[str, Any] = {
        "policy": name_of(policy),
        ("isMutatingAdmissionPolicy" if mutating else "isValidatingAdmissionPolicy"): True,
        "kind": obj.get("kind"),
        "resources": [resource],
        "result": RESULTS[result],
    }
    test: dict[str, Any] = {
        "apiVersion": "cli.kyverno.io/v1alpha1",
        "kind": "Test",
        "metadata": {"name": slug(label)},
        "policies": ["policy.yaml"],
        "resources": ["resource.yaml"],
    }
    if binding is not None and (binding.get("spec") or {}).get("paramRef"):
        params = other_objects(item.documents)
        if params:
            files["params.yaml"] = dump_documents(params)
            test["paramResources"] = ["params.yaml"]
    if mutating and "object" in expect:
        files["patched.yaml"] = dump_documents([expect["object"]])
        entry["patchedResources"] = "patched.yaml"
    namespace = request_namespace(obj, item.version)
    labels = _labels(case.get("namespaceObject"))
    if namespace and labels:
        files["values.yaml"] = dump_documents(
            [
                {
                    "apiVersion": "cli.kyverno.io/v1alpha1",
                    "kind": "Values",
                    "metadata": {"name": "values"},
                    "namespaceSelector": [{"name": namespace, "labels": labels}],
                }
            ]
        )
        test["variables"] = "values.yaml"
    if isinstance(case.get("userInfo"), dict):
        files["userinfo.yaml"] = dump_documents(
            [
                {
                    "apiVersion": "cli.kyverno.io/v1alpha1",
                    "kind": "UserInfo",
                    "metadata": {"name": "user"},
                    "userInfo": case["userInfo"],
                }
            ]
        )
        test["userinfo"] = "userinfo.yaml"
    test["results"] = [entry]
    files["kyverno-test.yaml"] = dump_documents([test])
    return f"{item.index:02d}-{slug(label)}", files


def _labels(namespace_object: Any) -> dict[str, str]:
    if not isinstance(namespace_object, dict):
        return {}
    labels = (namespace_object.get("metadata") or {}).get("labels") or {}
    # the automatic label is the namespace's own: the runner adds it from the name
    return {k: str(v) for k, v in labels.items() if k != "kubernetes.io/metadata.name"}


def _weakened(case: dict[str, Any], expect: dict[str, Any], label: str, export: Export) -> None:
    lost: list[str] = [
        key for key in ("messages", "warnings", "auditAnnotations", "allowed") if key in expect
    ]
    namespace_object = case.get("namespaceObject")
    if isinstance(namespace_object, dict) and set(namespace_object) - {
        "apiVersion",
        "kind",
        "metadata",
    }:
        lost.append("namespaceObject fields other than its labels")
    lost += unported_options(case)
    if lost:
        export.weakened.append(f"{label}: {', '.join(lost)} (Kyverno CLI tests cannot say so)")
