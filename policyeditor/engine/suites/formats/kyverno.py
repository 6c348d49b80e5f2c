"""Kyverno CLI test files (`kyverno-test.yaml`) whose results name ValidatingAdmissionPolicies or
MutatingAdmissionPolicies, into TestCases.

The layout is Kyverno's (kyverno/kyverno cmd/cli/kubectl-kyverno/apis/v1alpha1 test.go,
test_result.go, values.go, user_info.go): `policies`, `resources` and `paramResources` are files
relative to the test file, `variables` a Values file (whose `namespaceSelector` gives namespace
labels), `userinfo` a UserInfo file, and each entry of `results` names a policy, the resources it is
applied to (`resources`, or the older `resource`, optionally `<namespace>/<name>`), their `kind`, the
expected `result` (pass, fail, warn, error, skip) and for a MAP the expected object
(`patchedResource`, or `patchedResources` as newer suites write it). The file is decoded strictly,
as Kyverno's loader does (test/load.go, yaml.UnmarshalStrict): an unknown field is an error.

Each (result, resource) pair is one case: the resource is sent as a CREATE request, as the Kyverno
CLI does, and evaluated as kube-apiserver would (every binding of the policy, validationActions,
failurePolicy, the namespace's labels, API-server validation of the policies first).
formats/kyverno_results.py grades the outcome in Kyverno's words and notes each case where
Kyverno's CLI would report something else.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from policyeditor.engine.objects import BINDING_KINDS, MAP, POLICY_KINDS, VAP, name_of, namespace_of
from policyeditor.engine.suites.files import (
    display,
    load_documents,
    load_listed,
    load_suite_document,
    split_documents,
)
from policyeditor.engine.suites.formats.kyverno_inputs import (
    namespace_labels,
    namespaces,
    user_info,
)
from policyeditor.engine.suites.formats.kyverno_results import load_notes
from policyeditor.engine.suites.model import (
    LAYOUT_KYVERNO,
    UNSET,
    Expectation,
    SuiteError,
    TestCase,
)

FILE_NAMES = ("kyverno-test.yaml", "kyverno-test.yml")
# Kyverno CLI tests: cli.kyverno.io/v1alpha1 Test, and kyverno.io/v1 (or v1alpha1) Test written
# before the cli.kyverno.io group existed.
GROUPS = ("cli.kyverno.io", "kyverno.io")
REPORT_RESULTS = ("pass", "fail", "warn", "error", "skip")

# The fields of Test (apis/v1alpha1 test.go) over the versions Kyverno has shipped.
_TOP_FIELDS = {
    "apiVersion",
    "kind",
    "metadata",
    "name",
    "policies",
    "resources",
    "jsonPayload",
    "jsonPayloads",
    "targetResources",
    "variables",
    "paramResources",
    "userinfo",
    "results",
    "checks",
    "values",
    "exceptions",
    "context",
    "clusterResources",
}
# Fields for Kyverno's own policies: accepted, and said to be ignored when a suite sets them.
_KYVERNO_ONLY = (
    "jsonPayload",
    "jsonPayloads",
    "targetResources",
    "checks",
    "exceptions",
    "context",
    "clusterResources",
)
# TestResult (apis/v1alpha1 test_result.go): TestResultBase, TestResultDeprecated and Resources,
# plus the flags of Kyverno's other policy types.
_RESULT_FIELDS = {
    "policy",
    "rule",
    "isValidatingAdmissionPolicy",
    "isMutatingAdmissionPolicy",
    "isValidatingPolicy",
    "isMutatingPolicy",
    "isImageValidatingPolicy",
    "isGeneratingPolicy",
    "isDeletingPolicy",
    "result",
    "kind",
    "patchedResource",
    "patchedResources",
    "generatedResource",
    "cloneSourceResource",
    "status",
    "resource",
    "namespace",
    "resources",
}
_OTHER_POLICY_FLAGS = {
    "isValidatingPolicy": "ValidatingPolicy",
    "isMutatingPolicy": "MutatingPolicy",
    "isImageValidatingPolicy": "ImageValidatingPolicy",
    "isGeneratingPolicy": "GeneratingPolicy",
    "isDeletingPolicy": "DeletingPolicy",
}
_PREFIX = "invalid Kyverno test"


def is_kyverno_name(path: Path) -> bool:
    """True for the file name the Kyverno CLI looks for (its --file-name default)."""
    return path.name in FILE_NAMES


def looks_like_kyverno_test(doc: Any) -> bool:
    """A Kyverno CLI Test: its apiVersion group and kind, or the older layout without them."""
    if not isinstance(doc, dict):
        return False
    api_version, kind = doc.get("apiVersion"), doc.get("kind")
    if isinstance(api_version, str) and isinstance(kind, str):
        return kind == "Test" and api_version.rpartition("/")[0] in GROUPS
    return api_version is None and kind is None and is_legacy_kyverno_test(doc)


def is_legacy_kyverno_test(doc: dict[str, Any]) -> bool:
    """Kyverno's older test files: a `results` list of entries naming a policy and a result."""
    # `status` is the oldest spelling of `result`; kaptest manifests have no `results`.
    results = doc.get("results")
    return (
        isinstance(results, list)
        and bool(results)
        and all(
            isinstance(r, dict) and "policy" in r and ("result" in r or "status" in r)
            for r in results
        )
    )


def load_kyverno(path: Path, *, default_version: str | None = None) -> list[TestCase]:
    """Every case of a Kyverno CLI test file; SuiteError when the file or its inputs are malformed."""
    suite = display(path)
    test = load_suite_document(
        path, what="Kyverno test", one=f"{_PREFIX}: expected one YAML document"
    )
    _check_test(suite, test)
    base = path.parent
    problems: list[str] = []
    policy_docs = load_listed(base, test, ("policies",), problems)
    objects = load_listed(base, test, ("resources",), problems)
    params = load_listed(base, test, ("paramResources",), problems)
    labels = namespace_labels(base, test, problems)
    user = user_info(base, test, problems)
    if problems:
        raise SuiteError(suite, "; ".join(problems))
    documents, others = split_documents(policy_docs)
    cluster_namespaces = namespaces(labels, objects, default_version)
    ignored = [key for key in _KYVERNO_ONLY if test.get(key)]
    cases: list[TestCase] = []
    for index, entry in enumerate(test.get("results") or []):
        where = f"results[{index}]"
        for case in _result_cases(suite, base, where, entry, documents, others, objects):
            case.version = default_version
            case.resources = [*params, *cluster_namespaces]
            case.user_info = copy.deepcopy(user)
            if ignored:
                case.notes.append(
                    f"ignored: {', '.join(ignored)} (Kyverno policies only, not admission policies)"
                )
            cases.append(case)
    if not cases:
        raise SuiteError(suite, f"{_PREFIX}: no results to check")
    return cases


def _check_test(suite: str, test: dict[str, Any]) -> None:
    unknown = sorted(set(test) - _TOP_FIELDS)
    if unknown:
        # Kyverno decodes the file strictly (test/load.go): `json: unknown field "spec"`
        raise SuiteError(suite, f'{_PREFIX}: json: unknown field "{unknown[0]}"')
    for key in ("policies", "resources", "paramResources"):
        value = test.get(key)
        if value is not None and (
            not isinstance(value, list) or not all(isinstance(v, str) for v in value)
        ):
            raise SuiteError(suite, f"{_PREFIX}: {key}: expected a list of file paths")
    for key in ("variables", "userinfo"):
        if test.get(key) is not None and not isinstance(test[key], str):
            raise SuiteError(suite, f"{_PREFIX}: {key}: expected a file path")
    if not isinstance(test.get("results"), list):
        raise SuiteError(suite, f"{_PREFIX}: results: expected a list of expected results")
    if not test.get("policies"):
        raise SuiteError(suite, f"{_PREFIX}: policies: at least one policy file is required")
    if test.get("values") is not None and not isinstance(test["values"], dict):
        raise SuiteError(suite, f"{_PREFIX}: values: expected a mapping")


def _result_cases(
    suite: str,
    base: Path,
    where: str,
    entry: Any,
    documents: list[dict[str, Any]],
    others: list[dict[str, Any]],
    objects: list[dict[str, Any]],
) -> list[TestCase]:
    def new_case(name: str) -> TestCase:
        return TestCase(
            name=name, suite=suite, source=suite, layout=LAYOUT_KYVERNO, operation="CREATE"
        )

    if not isinstance(entry, dict):
        case = new_case(where)
        case.error = f"{where}: expected a mapping"
        return [case]
    policy_name = str(entry.get("policy") or "")
    try:
        expected = _expected(where, entry)
        policy = _policy(where, entry, policy_name, documents, others)
        patched = _patched(base, where, entry)
        targets = _targets(where, entry, objects, patched)
    except ValueError as error:
        case = new_case(f"{policy_name or where}")
        case.error = str(error)
        return [case]
    cases = []
    for obj in targets:
        case = new_case(f"{policy_name}: {_describe(obj)} ({expected})")
        case.documents = documents
        case.policy = policy_name
        case.object = copy.deepcopy(obj)
        expect = Expectation(report_result=expected)
        if policy.get("kind") == MAP and patched:
            expect.object = _patched_for(obj, patched)
        case.expect = expect
        case.notes = load_notes(policy, documents)
        cases.append(case)
    return cases


def _expected(where: str, entry: dict[str, Any]) -> str:
    unknown = sorted(set(entry) - _RESULT_FIELDS)
    if unknown:
        raise ValueError(f'{where}: json: unknown field "{unknown[0]}"')
    for flag, kind in _OTHER_POLICY_FLAGS.items():
        if entry.get(flag):
            raise ValueError(
                f"{where}: a Kyverno {kind} result ({flag}); policyeditor runs ValidatingAdmissionPolicy "
                "and MutatingAdmissionPolicy results"
            )
    expected = entry.get("result", entry.get("status"))
    if expected not in REPORT_RESULTS:
        supported = ", ".join(f'"{r}"' for r in REPORT_RESULTS)
        raise ValueError(
            f"{where}.result: Unsupported value: {expected!r}: supported values: {supported}"
        )
    return str(expected)


def _policy(
    where: str,
    entry: dict[str, Any],
    name: str,
    documents: list[dict[str, Any]],
    others: list[dict[str, Any]],
) -> dict[str, Any]:
    if not name:
        raise ValueError(f"{where}.policy: Required value")
    kinds: tuple[str, ...] = POLICY_KINDS
    if entry.get("isValidatingAdmissionPolicy"):
        kinds = (VAP,)
    elif entry.get("isMutatingAdmissionPolicy"):
        kinds = (MAP,)
    found = [d for d in documents if d.get("kind") in kinds and name_of(d) == name]
    if found:
        return found[0]
    other = next((d for d in [*documents, *others] if name_of(d) == name), None)
    if other is not None and other.get("kind") not in BINDING_KINDS:
        raise ValueError(
            f"{where}: policy {name!r} is a {other.get('kind')}; policyeditor runs ValidatingAdmissionPolicy "
            "and MutatingAdmissionPolicy results"
        )
    wanted = " or ".join(kinds)
    raise ValueError(f"{where}: {wanted} {name!r} not found in the policy files")


def _patched(base: Path, where: str, entry: dict[str, Any]) -> list[dict[str, Any]]:
    relative = entry.get("patchedResources", entry.get("patchedResource"))
    if not relative:
        return []
    if not isinstance(relative, str):
        raise ValueError(f"{where}.patchedResources: expected a file path")
    try:
        return load_documents(base / relative, what="patched resource file")
    except SuiteError as error:
        raise ValueError(f"{where}.patchedResources: {relative}: {error.message}") from None


def _targets(
    where: str, entry: dict[str, Any], objects: list[dict[str, Any]], patched: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The resources a result is about, in the order the resources files hold them."""
    names = entry.get("resources") or []
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise ValueError(f"{where}.resources: expected a list of resource names")
    if isinstance(entry.get("resource"), str) and entry["resource"]:
        names = [*names, entry["resource"]]
    kind = entry.get("kind") or None
    namespace = entry.get("namespace") or None
    if not names:
        if not patched:
            raise ValueError(f"{where}: names no resources (resources, resource)")
        # Kyverno pairs a result without resources with the resources its patched file names.
        refs = [(d.get("kind"), namespace_of(d) or None, name_of(d)) for d in patched]
    else:
        refs = []
        for name in names:
            ns, _, short = name.rpartition("/")
            refs.append((kind, ns or namespace, short))
    found: list[dict[str, Any]] = []
    for ref_kind, ref_namespace, ref_name in refs:
        matches = [
            o
            for o in objects
            if name_of(o) == ref_name
            and (ref_kind is None or o.get("kind") == ref_kind)
            and (ref_namespace is None or namespace_of(o) == ref_namespace)
        ]
        if not matches:
            what = f"{ref_kind} {ref_name!r}" if ref_kind else repr(ref_name)
            if ref_namespace:
                what += f" in namespace {ref_namespace!r}"
            raise ValueError(f"{where}: resource {what} not found in the resources files")
        found.extend(m for m in matches if not any(m is f for f in found))
    return found


def _patched_for(obj: dict[str, Any], patched: list[dict[str, Any]]) -> Any:
    """The expected object for one resource: the patched document of the same kind and name."""
    same = [
        d
        for d in patched
        if d.get("kind") == obj.get("kind")
        and name_of(d) == name_of(obj)
        and namespace_of(d) in ("", namespace_of(obj))
    ]
    if same:
        return copy.deepcopy(same[0])
    return copy.deepcopy(patched[0]) if len(patched) == 1 else UNSET


def _describe(obj: dict[str, Any]) -> str:
    namespace = namespace_of(obj)
    name = f"{namespace}/{name_of(obj)}" if namespace else name_of(obj)
    return f"{obj.get('kind', '')} {name}"
