"""Our own suite format, `*.policytest.yaml` (documented in docs/policytest.md), into TestCases.

Besides the documented fields a suite may list `crds:` (files of CustomResourceDefinitions whose
schemas type, prune and validate custom resources, see docs/custom-resources.md), `resources:` (files of param objects, namespaces and
other cluster objects that paramRef and selectors resolve against), and each `*File` variant
(`objectFile`, `oldObjectFile`, `paramsFile`, `namespaceObjectFile`, `expect.objectFile`) reads
that part from a file relative to the suite. Unknown fields are errors, as strict decoding does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from policyeditor.engine import versions
from policyeditor.engine.admission.authorizer import parse_entries
from policyeditor.engine.objects import BINDING_KINDS, name_of
from policyeditor.engine.suites.files import (
    display,
    load_crd_files,
    load_documents,
    load_object,
    load_suite_document,
    policy_names,
    split_documents,
)
from policyeditor.engine.suites.model import (
    LAYOUT_POLICYTEST,
    RESULTS,
    UNSET,
    Expectation,
    SuiteError,
    SuiteFile,
    TestCase,
)

API_VERSION = "policyeditor.dev/v1"
KIND = "PolicyTest"
SUFFIXES = (".policytest.yaml", ".policytest.yml")

_TOP_FIELDS = {
    "apiVersion",
    "kind",
    "metadata",
    "policies",
    "resources",
    "crds",
    "kubernetesVersion",
    "defaulting",
    "cases",
}
_CASE_FIELDS = {
    "name",
    "kubernetesVersion",
    "defaulting",
    "policy",
    "binding",
    "operation",
    "object",
    "objectFile",
    "oldObject",
    "oldObjectFile",
    "params",
    "paramsFile",
    "namespaceObject",
    "namespaceObjectFile",
    "userInfo",
    "request",
    "authorizer",
    "expect",
}
_EXPECT_FIELDS = {
    "result",
    "allowed",
    "messages",
    "warnings",
    "auditAnnotations",
    "object",
    "objectFile",
}
_OPERATIONS = ("CREATE", "UPDATE", "DELETE", "CONNECT")


def is_policytest(path: Path) -> bool:
    """True for a file named like one of our suites."""
    return path.name.endswith(SUFFIXES)


def looks_like_policytest(doc: Any) -> bool:
    """True for a document that says it is a PolicyTest."""
    return isinstance(doc, dict) and doc.get("kind") == KIND


def load_policytest(path: Path, *, default_version: str | None = None) -> list[TestCase]:
    """Every case of one suite file; SuiteError when the suite itself is malformed."""
    suite = display(path)
    spec = load_suite_document(path, what="test suite", one="expected one PolicyTest document")
    _check_header(suite, spec)
    base = path.parent
    documents, resources = _load_files(suite, base, spec, "policies")
    if not policy_names(documents):
        raise SuiteError(
            suite, "policies: no ValidatingAdmissionPolicy or MutatingAdmissionPolicy found"
        )
    extra_docs, extra_resources = _load_files(suite, base, spec, "resources")
    resources += extra_docs + extra_resources
    crds = load_crd_files(suite, base, spec.get("crds"))
    version = _version(suite, "kubernetesVersion", spec.get("kubernetesVersion"), default_version)
    try:
        defaulting = _flag(spec.get("defaulting"), "defaulting", True)
    except ValueError as error:
        raise SuiteError(suite, str(error)) from None
    cases = spec.get("cases")
    if not isinstance(cases, list) or not cases:
        raise SuiteError(suite, "cases: Required value: at least one case")
    file = SuiteFile(suite, LAYOUT_POLICYTEST, documents, resources, version)
    result, seen = [], set()
    for index, raw in enumerate(cases):
        case = _case(file, base, index, raw, defaulting)
        case.crds = crds
        if case.name in seen and case.error is None:
            case.error = f"cases[{index}].name: Duplicate value: {case.name!r}"
        seen.add(case.name)
        result.append(case)
    return result


def _check_header(suite: str, spec: dict[str, Any]) -> None:
    if spec.get("kind") != KIND:
        raise SuiteError(
            suite, f'kind: Unsupported value: {spec.get("kind")!r}: supported values: "{KIND}"'
        )
    if spec.get("apiVersion") != API_VERSION:
        raise SuiteError(
            suite,
            f'apiVersion: Unsupported value: {spec.get("apiVersion")!r}: supported values: "{API_VERSION}"',
        )
    unknown = sorted(set(spec) - _TOP_FIELDS)
    if unknown:
        raise SuiteError(suite, f'unknown field "{unknown[0]}"')


def _load_files(
    suite: str, base: Path, spec: dict[str, Any], key: str
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    paths = spec.get(key)
    if paths is None and key == "resources":
        return [], []
    if isinstance(paths, str):
        paths = [paths]
    if not isinstance(paths, list) or not paths or not all(isinstance(p, str) for p in paths):
        raise SuiteError(
            suite, f"{key}: Required value: a list of file paths relative to the suite"
        )
    docs: list[dict[str, Any]] = []
    for relative in paths:
        docs.extend(load_documents(base / relative, what=f"{key} file"))
    return split_documents(docs)


def _flag(value: Any, where: str, default: bool) -> bool:
    """A true/false field (`defaulting`); unset keeps `default`."""
    if value is None:
        return default
    if not isinstance(value, bool):
        raise ValueError(f"{where}: Invalid value: {value!r}: must be true or false")
    return value


def _version(suite: str, where: str, value: Any, default: str | None) -> str:
    if value is None:
        return versions.normalize_version(default)
    try:
        return versions.normalize_version(str(value))
    except ValueError as error:
        raise SuiteError(suite, f"{where}: {error}") from None


def _case(file: SuiteFile, base: Path, index: int, raw: Any, defaulting: bool = True) -> TestCase:
    where = f"cases[{index}]"
    name = raw.get("name") if isinstance(raw, dict) else None
    name = name if isinstance(name, str) and name else f"case-{index}"
    case = file.new_case(name, defaulting=defaulting)
    try:
        _fill_case(case, base, where, raw)
    except SuiteError as error:
        case.error = error.message if error.source == file.suite else str(error)
    except ValueError as error:
        case.error = str(error)
    return case


def _fill_case(case: TestCase, base: Path, where: str, raw: Any) -> None:
    """Fill the case from its mapping, on its file's documents and Kubernetes version."""
    documents, version = case.documents, case.version
    if not isinstance(raw, dict):
        raise ValueError(f"{where}: expected a mapping")
    unknown = sorted(set(raw) - _CASE_FIELDS)
    if unknown:
        raise ValueError(f'{where}: unknown field "{unknown[0]}"')
    if not isinstance(raw.get("name"), str) or not raw["name"]:
        raise ValueError(f"{where}.name: Required value")
    case.version = _version(
        case.suite, f"{where}.kubernetesVersion", raw.get("kubernetesVersion"), version
    )
    case.defaulting = _flag(raw.get("defaulting"), f"{where}.defaulting", case.defaulting)
    case.policy = _optional_str(raw, "policy", where)
    case.binding = _optional_str(raw, "binding", where)
    names = policy_names(documents)
    if case.policy is not None and case.policy not in names:
        raise ValueError(
            f"{where}.policy: policy {case.policy!r} not found (policies: {', '.join(names)})"
        )
    if case.binding is not None:
        bindings = [name_of(d) for d in documents if d.get("kind") in BINDING_KINDS]
        if case.binding not in bindings:
            found = ", ".join(bindings) or "none"
            raise ValueError(
                f"{where}.binding: binding {case.binding!r} not found (bindings: {found})"
            )
    operation = _optional_str(raw, "operation", where)
    if operation is not None and operation not in _OPERATIONS:
        raise ValueError(
            f"{where}.operation: Unsupported value: {operation!r}: supported values: {_quoted(_OPERATIONS)}"
        )
    case.operation = operation
    case.object = _part(raw, base, where, "object", mapping=True)
    case.old_object = _part(raw, base, where, "oldObject", mapping=True)
    case.params = _part(raw, base, where, "params", unset=True)
    case.namespace_object = _part(raw, base, where, "namespaceObject", unset=True)
    if case.object is None and case.old_object is None and operation != "CONNECT":
        raise ValueError(f"{where}: object or oldObject is required")
    user_info = raw.get("userInfo")
    if user_info is not None and not isinstance(user_info, dict):
        raise ValueError(f"{where}.userInfo: expected a mapping")
    case.user_info = user_info
    request = raw.get("request", {})
    if not isinstance(request, dict):
        raise ValueError(f"{where}.request: expected a mapping of AdmissionRequest fields")
    case.request = dict(request)
    if "authorizer" in raw:
        try:
            parse_entries(raw["authorizer"])
        except ValueError as error:
            raise ValueError(f"{where}.{error}") from None
        case.authorizer = raw["authorizer"] or []
    case.expect = _expectation(raw.get("expect"), base, f"{where}.expect")


def _expectation(raw: Any, base: Path, where: str) -> Expectation:
    if not isinstance(raw, dict) or not raw:
        raise ValueError(f"{where}: Required value: what the case expects (result, messages, ...)")
    unknown = sorted(set(raw) - _EXPECT_FIELDS)
    if unknown:
        raise ValueError(f'{where}: unknown field "{unknown[0]}"')
    expect = Expectation()
    result = raw.get("result")
    if result is not None and result not in RESULTS:
        raise ValueError(
            f"{where}.result: Unsupported value: {result!r}: supported values: {_quoted(RESULTS)}"
        )
    expect.result = result
    allowed = raw.get("allowed")
    if allowed is not None and not isinstance(allowed, bool):
        raise ValueError(f"{where}.allowed: expected true or false")
    expect.allowed = allowed
    expect.messages = _strings(raw.get("messages"), f"{where}.messages") or []
    expect.warnings = _strings(raw.get("warnings"), f"{where}.warnings")
    annotations = raw.get("auditAnnotations")
    if annotations is not None:
        if not isinstance(annotations, dict):
            raise ValueError(f"{where}.auditAnnotations: expected a mapping of key: value")
        expect.audit_annotations = {
            str(k): "" if v is None else str(v) for k, v in annotations.items()
        }
    expect.object = _part(raw, base, where, "object", unset=True)
    return expect


def _part(
    raw: dict[str, Any],
    base: Path,
    where: str,
    key: str,
    *,
    mapping: bool = False,
    unset: bool = False,
) -> Any:
    """An inline value or the `<key>File` it is read from."""
    file_key = f"{key}File"
    if key in raw and file_key in raw:
        raise ValueError(f"{where}: give {key} or {file_key}, not both")
    if file_key in raw:
        relative = raw[file_key]
        if not isinstance(relative, str) or not relative:
            raise ValueError(f"{where}.{file_key}: expected a file path")
        return load_object(base / relative, what=key)
    if key not in raw:
        return UNSET if unset else None
    value = raw[key]
    if mapping and value is not None and not isinstance(value, dict):
        raise ValueError(f"{where}.{key}: expected a mapping (a Kubernetes object)")
    return value


def _optional_str(raw: dict[str, Any], key: str, where: str) -> str | None:
    value = raw.get(key)
    if value is not None and (not isinstance(value, str) or not value):
        raise ValueError(f"{where}.{key}: expected a non-empty string")
    return value


def _strings(value: Any, where: str) -> list[str] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"{where}: expected a list of strings")
    return list(value)


def _quoted(values: tuple[str, ...]) -> str:
    return ", ".join(f'"{v}"' for v in values)
