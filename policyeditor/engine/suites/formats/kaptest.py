"""kaptest manifests (pfnet/kaptest `kaptest.yaml`, both the v0.1 and the v0.2 layouts) into TestCases.

Objects, old objects, params and expected objects are references (kind + name, optionally group,
version, namespace) into the `resources` files. kaptest evaluates CEL only, so its cases are marked
`cel_only`: matchConstraints and failurePolicy do not take part, and request.dryRun is true. As in
kaptest, the params object is found by the policy's paramKind and the test's `param` name, the
namespace object by the object's namespace (it must be among the resources). Policies are not put
through API-server validation first: kaptest only checks them against the schema, and its own
examples rely on that.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from policyeditor.engine.jsontypes import object_at
from policyeditor.engine.objects import name_of, namespace_of
from policyeditor.engine.suites.files import (
    display,
    load_crd_files,
    load_listed,
    load_suite_document,
    split_documents,
)
from policyeditor.engine.suites.model import (
    LAYOUT_KAPTEST,
    UNSET,
    Expectation,
    SuiteError,
    SuiteFile,
    TestCase,
)

FILE_NAMES = ("kaptest.yaml", "kaptest.yml")
SUPPORTED_VERSIONS = ("v1alpha1",)
_POLICY_KEYS = ("validatingAdmissionPolicies", "mutatingAdmissionPolicies", "policies")
_SUITE_KEYS = {"testSuites": "vap", "vapTestSuites": "vap", "mapTestSuites": "map"}
_TOP_FIELDS = {
    *_POLICY_KEYS,
    *_SUITE_KEYS,
    "version",
    "resources",
    "schemaLocations",
    "crds",
    "skipSchemaValidation",
}
_TEST_FIELDS = {
    "object",
    "oldObject",
    "param",
    "expect",
    "userInfo",
    "deniedMessage",
    "expectObject",
    "disableNameOverwrite",
}
_EXPECTS = {
    "vap": {"admit": "allow", "allow": "allow", "deny": "deny", "skip": "skip", "error": "error"},
    "map": {
        "mutate": "mutate",
        "admit": "allow",
        "allow": "allow",
        "skip": "skip",
        "error": "error",
    },
}


def is_kaptest_name(path: Path) -> bool:
    """True for the file names discovery picks up as kaptest manifests."""
    return path.name in FILE_NAMES or path.name.endswith((".kaptest.yaml", ".kaptest.yml"))


def looks_like_kaptest(doc: Any) -> bool:
    """True for a mapping with kaptest's top-level keys and no apiVersion or kind."""
    # A kaptest manifest is not a Kubernetes-style object (pfnet/kaptest internal/tester
    # manifest: version, policies, resources, testSuites...); a document with apiVersion or kind
    # is some other tool's, even when it shares `policies` and `resources` (Kyverno CLI tests do).
    if not isinstance(doc, dict) or "apiVersion" in doc or "kind" in doc:
        return False
    return bool(set(doc) & (set(_POLICY_KEYS) | set(_SUITE_KEYS)))


def load_kaptest(path: Path, *, default_version: str | None = None) -> list[TestCase]:
    """Every case of a kaptest manifest; SuiteError when the manifest is malformed."""
    suite = display(path)
    spec = load_suite_document(
        path, what="kaptest manifest", one="invalid kaptest manifest: expected one YAML document"
    )
    _check_manifest(suite, spec)
    base = path.parent
    problems: list[str] = []
    policy_docs = load_listed(base, spec, _POLICY_KEYS, problems)
    resource_docs = load_listed(base, spec, ("resources",), problems)
    if problems:
        raise SuiteError(suite, "; ".join(problems))
    documents, other = split_documents(policy_docs)
    resources = other + resource_docs
    # kaptest's `crds:` lists CRD files; their schemas type, prune and validate custom resources.
    crds = load_crd_files(suite, base, spec.get("crds"))
    file = SuiteFile(suite, LAYOUT_KAPTEST, documents, resources, default_version)
    cases: list[TestCase] = []
    for key, family in _SUITE_KEYS.items():
        for index, entry in enumerate(spec.get(key) or []):
            where = f"{key}[{index}]"
            cases.extend(_suite_cases(file, where, family, entry))
    for case in cases:
        case.crds = crds
    return cases


def _check_manifest(suite: str, spec: dict[str, Any]) -> None:
    prefix = "invalid kaptest manifest"
    unknown = sorted(set(spec) - _TOP_FIELDS)
    if unknown:
        raise SuiteError(suite, f'{prefix}: unknown field "{unknown[0]}"')
    version = spec.get("version")
    if version is not None and version not in SUPPORTED_VERSIONS:
        raise SuiteError(
            suite,
            f"{prefix}: unsupported version {version!r}, supported versions: [{', '.join(SUPPORTED_VERSIONS)}]",
        )
    if not any(spec.get(key) for key in _POLICY_KEYS):
        raise SuiteError(
            suite,
            f"{prefix}: at least one policy file is required (validatingAdmissionPolicies, mutatingAdmissionPolicies or policies)",
        )
    if not any(spec.get(key) for key in _SUITE_KEYS):
        raise SuiteError(
            suite,
            f"{prefix}: at least one test suite is required (testSuites, vapTestSuites or mapTestSuites)",
        )
    for key in (*_POLICY_KEYS, "resources"):
        value = spec.get(key)
        if value is not None and (
            not isinstance(value, list) or not all(isinstance(v, str) for v in value)
        ):
            raise SuiteError(suite, f"{prefix}: {key}: expected a list of file paths")
    for key in _SUITE_KEYS:
        value = spec.get(key)
        if value is not None and not isinstance(value, list):
            raise SuiteError(suite, f"{prefix}: {key}: expected a list of test suites")


def _suite_cases(file: SuiteFile, where: str, family: str, entry: Any) -> list[TestCase]:
    def new_case(name: str) -> TestCase:
        # kaptest fixes dryRun to true
        return file.new_case(name, cel_only=True, request={"dryRun": True})

    documents, resources = file.documents, file.resources

    if not isinstance(entry, dict) or not isinstance(entry.get("policy"), str):
        case = new_case(where)
        case.error = f"{where}.policy: Required value: the name of the policy the tests are for"
        return [case]
    policy_name = entry["policy"]
    kind = "ValidatingAdmissionPolicy" if family == "vap" else "MutatingAdmissionPolicy"
    policy = next(
        (d for d in documents if d.get("kind") == kind and name_of(d) == policy_name), None
    )
    tests = entry.get("tests")
    if not isinstance(tests, list) or not tests:
        case = new_case(policy_name)
        case.error = f"{where}.tests: Required value: at least one test"
        return [case]
    # kaptest evaluates the policy alone unless the suite names a binding to go through.
    binding = entry.get("binding") if isinstance(entry.get("binding"), str) else None
    binding_kind = f"{kind}Binding"
    bindings = [d for d in documents if d.get("kind") == binding_kind and name_of(d) == binding]
    suite_documents = ([policy] if policy is not None else []) + bindings
    cases = []
    for index, test in enumerate(tests):
        case = new_case(f"{policy_name}[{index}]")
        if isinstance(test, dict):
            case.name = _describe(policy_name, test, test.get("expect"))
        case.policy = policy_name
        case.binding = binding or None
        try:
            if binding and not bindings:
                raise ValueError(
                    f"{where}.binding: {binding_kind} {binding!r} not found in the policy files"
                )
            if policy is None:
                found = ", ".join(name_of(d) for d in documents if d.get("kind") == kind) or "none"
                raise ValueError(
                    f"{kind} {policy_name!r} not found in the policy files (policies of that kind: {found})"
                )
            case.documents = suite_documents
            _fill_test(case, f"{where}.tests[{index}]", family, test, policy, resources)
        except ValueError as error:
            case.error = str(error)
        cases.append(case)
    return cases


def _fill_test(
    case: TestCase,
    where: str,
    family: str,
    test: Any,
    policy: dict[str, Any],
    resources: list[dict[str, Any]],
) -> None:
    if not isinstance(test, dict):
        raise ValueError(f"{where}: expected a mapping")
    unknown = sorted(set(test) - _TEST_FIELDS)
    if unknown:
        raise ValueError(f'{where}: unknown field "{unknown[0]}"')
    expect = test.get("expect")
    mapped = _EXPECTS[family].get(expect) if isinstance(expect, str) else None
    if mapped is None:
        supported = ", ".join(f'"{e}"' for e in _EXPECTS[family])
        raise ValueError(
            f"{where}.expect: Unsupported value: {expect!r}: supported values: {supported}"
        )
    obj = _resolve(test.get("object"), f"{where}.object", resources)
    old = _resolve(test.get("oldObject"), f"{where}.oldObject", resources)
    if obj is None and old is None:
        raise ValueError(f"{where}: object or oldObject must be given")
    case.object, case.old_object = obj, old
    case.operation = (
        "UPDATE"
        if obj is not None and old is not None
        else "CREATE"
        if obj is not None
        else "DELETE"
    )
    case.params = _params(test.get("param"), f"{where}.param", policy, resources)
    case.namespace_object = _namespace(obj, old, where, resources)
    # kaptest's request namespace is the object's own: "" (and a null namespaceObject) without one
    case.request["namespace"] = namespace_of(obj if obj is not None else old)
    case.user_info = _user_info(test.get("userInfo"), f"{where}.userInfo")
    case.expect = _expectation(mapped, test, where, obj, resources)


def _describe(policy: str, test: dict[str, Any], expect: object) -> str:
    """A readable case name like kaptest's summary line: `policy - (UPDATE) Kind:old -> new - DENY`."""
    obj, old = test.get("object"), test.get("oldObject")
    parts = [policy]
    if isinstance(obj, dict) and isinstance(old, dict):
        parts.append(f"(UPDATE) {_ref(old)} -> {_ref(obj)}")
    elif isinstance(obj, dict):
        parts.append(f"(CREATE) {_ref(obj)}")
    elif isinstance(old, dict):
        parts.append(f"(DELETE) {_ref(old)}")
    param = test.get("param")
    if isinstance(param, dict) and param.get("name"):
        parts[-1] += f" (Param: {_ref(param, kind=False)})"
    parts.append(str(expect).upper())
    return " - ".join(parts)


def _ref(ref: dict[str, Any], *, kind: bool = True) -> str:
    name = str(ref.get("name", ""))
    if ref.get("namespace"):
        name = f"{ref['namespace']}/{name}"
    return f"{ref.get('kind', '')}:{name}" if kind else name


def _resolve(
    ref: Any, where: str, resources: list[dict[str, Any]], *, kind: str | None = None
) -> dict[str, Any] | None:
    """The one resource a reference names; None when no reference is given."""
    if ref is None or ref == {}:
        return None
    if not isinstance(ref, dict):
        raise ValueError(f"{where}: expected a mapping with kind and name")
    want_kind = kind or ref.get("kind")
    if not want_kind or not ref.get("name"):
        raise ValueError(f"{where}: kind and name are required")
    found = [r for r in resources if _matches(ref, want_kind, r)]
    label = f"{want_kind} {_ref(ref, kind=False)!r}"
    if not found:
        raise ValueError(f"{where}: {label} not found in the resources files")
    if len(found) > 1:
        raise ValueError(
            f"{where}: multiple resources match {label}; give namespace, group or version"
        )
    return found[0]


def _matches(ref: dict[str, Any], kind: str, resource: dict[str, Any]) -> bool:
    if resource.get("kind") != kind or name_of(resource) != str(ref.get("name")):
        return False
    if ref.get("namespace") and namespace_of(resource) != ref["namespace"]:
        return False
    api_version = str(resource.get("apiVersion", ""))
    group, _, version = api_version.rpartition("/")
    if ref.get("group") is not None and ref.get("group") != group:
        return False
    return not (ref.get("group") is not None and ref.get("version") and ref["version"] != version)


def _params(ref: Any, where: str, policy: dict[str, Any], resources: list[dict[str, Any]]) -> Any:
    spec = object_at(policy, "spec")
    param_kind = spec.get("paramKind")
    if not isinstance(param_kind, dict):
        return UNSET  # no paramKind: params is null
    if not isinstance(ref, dict) or not ref.get("name"):
        raise ValueError(
            f"{where}: the policy has paramKind {param_kind.get('kind')}: give param.name"
        )
    group, _, version = str(param_kind.get("apiVersion", "")).rpartition("/")
    query = {**ref, "group": group, "version": version}
    return _resolve(query, where, resources, kind=str(param_kind.get("kind", "")))


def _namespace(
    obj: dict[str, Any] | None,
    old: dict[str, Any] | None,
    where: str,
    resources: list[dict[str, Any]],
) -> dict[str, Any] | None:
    names = {namespace_of(o) for o in (obj, old) if o is not None}
    if len(names) > 1:
        raise ValueError(f"{where}: namespace is different between object and oldObject")
    name = names.pop() if names else ""
    if not name:
        return None
    found = [r for r in resources if r.get("kind") == "Namespace" and name_of(r) == name]
    if not found:
        raise ValueError(
            f"{where}: Namespace {name!r} (the object's namespace) not found in the resources files"
        )
    return found[0]


def _user_info(raw: Any, where: str) -> dict[str, Any] | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise ValueError(f"{where}: expected a mapping")
    info: dict[str, Any] = {}
    username = raw.get("name", raw.get("username", raw.get("user")))
    if username is not None:
        info["username"] = str(username)
    for key in ("uid", "groups", "extra"):
        if raw.get(key) is not None:
            info[key] = raw[key]
    return info


def _expectation(
    mapped: str,
    test: dict[str, Any],
    where: str,
    obj: dict[str, Any] | None,
    resources: list[dict[str, Any]],
) -> Expectation:
    expect = Expectation()
    if mapped == "mutate":
        expect.allowed = True
        expected = _resolve(test.get("expectObject"), f"{where}.expectObject", resources)
        if expected is None:
            raise ValueError(
                f"{where}.expectObject: Required value: expectObject must be given when mutate expected"
            )
        expected = dict(expected)
        if not test.get("disableNameOverwrite") and obj is not None:
            # kaptest renames the expected object after the input object so one expectation fits many
            expected["metadata"] = {**(expected.get("metadata") or {}), "name": name_of(obj)}
        expect.object = expected
    else:
        expect.result = mapped
    denied = test.get("deniedMessage")
    if denied:
        expect.message_exact = str(denied).strip()
    return expect
