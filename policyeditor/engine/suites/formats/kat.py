"""kat directories: policy/binding files next to a `tests/` folder of `<policy>.<test>.<expect>.<type>.yaml`.

The layout follows zemanlx/kat (internal/loader request.go and suite.go): files sharing a base name
form one case; the type suffix says what a file holds (object, oldObject, request, params,
namespaceObject, authorizer, annotations, warnings) and `.gold.yaml` / `.message.txt` are the
expected mutated object and denial message. As in kat, `.gold.yaml` counts beside an object or
request file and `.message.txt` beside an object or oldObject file (kat looks them up from those
files' names only); a case that mutates without a `.gold.yaml` fails. The expect token is read as
kat reads it: `.deny.` (or a final `.deny`) expects a denial, anything else (allow, warn, audit)
only that the request is allowed; our skip and error, as the last segment, expect that result.
Where kat compares a message exactly we accept either the API server's full text or the policy's
own message inside it (kat prints the latter). A side file without any object/oldObject/request
file is reported, as is the same field given twice.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from policyeditor.engine.admission.authorizer import parse_entries
from policyeditor.engine.suites.files import (
    display,
    load_documents,
    load_list,
    load_mapping_or_empty,
    load_object,
    policy_names,
    read_text,
    split_documents,
)
from policyeditor.engine.suites.model import LAYOUT_KAT, UNSET, SuiteError, TestCase

TESTS_DIR = "tests"
_POLICY_NAMES = {"policy", "policies", "binding", "bindings"}
_EXTENSIONS = (".yaml", ".yml")
# Type suffix -> what it holds; checked longest first so ".oldObject.yaml" is not ".object.yaml".
INPUT_SUFFIXES = {
    ".request.yaml": "request",
    ".oldObject.yaml": "oldObject",
    ".namespaceObject.yaml": "namespaceObject",
    ".object.yaml": "object",
    ".params.yaml": "params",
    ".authorizer.yaml": "authorizer",
    ".annotations.yaml": "annotations",
    ".warnings.txt": "warnings",
    ".gold.yaml": "gold",
    ".message.txt": "message",
}
_PRIMARY = {"request", "object", "oldObject"}
_EXPECT_TOKENS = {
    "allow": "allow",
    "allowed": "allow",
    "deny": "deny",
    "denied": "deny",
    "warn": "warn",
    "audit": "audit",
    "skip": "skip",
    "error": "error",
}
_REQUEST_FIELDS = {"object", "oldObject", "params", "namespaceObject", "userInfo", "operation"}
# kat decodes a request file into its simplifiedRequest struct, which has no apiVersion or kind:
# a request written as a Kubernetes-style object keeps them and kat ignores them.
_REQUEST_IGNORED = {"apiVersion", "kind"}
# The request fields kat's request file sets besides the objects (internal/loader request.go).
REQUEST_OVERRIDES = {
    "namespace",
    "name",
    "subResource",
    "options",
    "kind",
    "resource",
    "requestKind",
    "requestResource",
    "requestSubResource",
    "dryRun",
    "uid",
}


def is_policy_file(path: Path) -> bool:
    """policy.yaml, policies.yaml, binding(s).yaml or `*.policy.yaml`-style names."""
    name = path.name
    for extension in _EXTENSIONS:
        if name.endswith(extension):
            stem = name[: -len(extension)]
            return stem in _POLICY_NAMES or (
                "." in stem and stem.rsplit(".", 1)[-1] in _POLICY_NAMES
            )
    return False


def is_kat_dir(path: Path) -> bool:
    """A directory with policy files and a tests/ folder."""
    if not path.is_dir() or not (path / TESTS_DIR).is_dir():
        return False
    return any(is_policy_file(child) for child in path.iterdir() if child.is_file())


def load_kat(directory: Path, *, default_version: str | None = None) -> list[TestCase]:
    """Every case of one kat directory; SuiteError when its policies cannot be read."""
    suite = display(directory)
    docs: list[dict[str, Any]] = []
    for path in sorted(p for p in directory.iterdir() if p.is_file() and is_policy_file(p)):
        docs.extend(load_documents(path, what="policy file"))
    documents, resources = split_documents(docs)
    if resources:
        kinds = sorted({str(doc.get("kind")) for doc in resources})
        raise SuiteError(
            suite, f"policy files hold other objects than policies and bindings: {', '.join(kinds)}"
        )
    names = policy_names(documents)
    if not names:
        raise SuiteError(
            suite, "no ValidatingAdmissionPolicy or MutatingAdmissionPolicy in the policy files"
        )
    groups = _group_files(directory / TESTS_DIR)
    if not groups:
        raise SuiteError(
            display(directory / TESTS_DIR), "no test files (<policy>.<test>.<expect>.<type>.yaml)"
        )
    cases = []
    for base in sorted(groups):
        case = TestCase(
            name=base,
            suite=suite,
            source=display(directory / TESTS_DIR / base),
            layout=LAYOUT_KAT,
            documents=documents,
            version=default_version,
        )
        try:
            _fill_case(case, base, groups[base], names)
        except SuiteError as error:
            case.error = str(error)
        except ValueError as error:
            case.error = str(error)
        cases.append(case)
    return cases


def _group_files(tests_dir: Path) -> dict[str, dict[str, Path]]:
    groups: dict[str, dict[str, Path]] = {}
    for path in sorted(tests_dir.iterdir()):
        if not path.is_file():
            continue
        for suffix, what in INPUT_SUFFIXES.items():
            if path.name.endswith(suffix) and len(path.name) > len(suffix):
                groups.setdefault(path.name[: -len(suffix)], {})[what] = path
                break
    return groups


def _fill_case(case: TestCase, base: str, files: dict[str, Path], names: list[str]) -> None:
    if not _PRIMARY & files.keys():
        found = ", ".join(sorted(p.name for p in files.values()))
        raise ValueError(
            f"{found}: no .object.yaml, .oldObject.yaml or .request.yaml for this case"
        )
    case.policy = _policy_for(base, names)
    fields: dict[str, Any] = {}
    sources: dict[str, str] = {}

    def put(key: str, value: Any, path: Path) -> None:
        if key in fields:
            raise ValueError(
                f"conflict: {key} defined in multiple files ({sources[key]}, {path.name})"
            )
        fields[key] = value
        sources[key] = path.name

    if "request" in files:
        _read_request(files["request"], put)
    for what in ("object", "oldObject", "namespaceObject", "params"):
        if what in files:
            put(what, load_object(files[what], what=what), files[what])
    _apply_inputs(case, fields)
    _apply_expectations(case, _expect_token(base), files)


def _expect_token(base: str) -> str | None:
    """deny, skip, error, or None (expect allowed) for a case's base name."""
    last = _EXPECT_TOKENS.get(base.rsplit(".", 1)[-1]) if "." in base else None
    if last in ("skip", "error", "deny"):
        return last
    # kat's expectedAllowed: a `.deny.` anywhere in the base name (or a final `.deny`) expects a
    # denial; `.warn.`, `.audit.` and anything else only that the request is allowed.
    return "deny" if ".deny." in f"{base}." else None


def _policy_for(base: str, names: list[str]) -> str:
    for name in sorted(names, key=len, reverse=True):  # the longest prefix is the most specific
        if base.startswith(f"{name}."):
            return name
    if len(names) == 1:
        return names[0]
    raise ValueError(
        f"file names must start with a policy name followed by '.' (policies: {', '.join(names)})"
    )


def _read_request(path: Path, put: Any) -> None:
    request = load_mapping_or_empty(path, what="request")
    unknown = sorted(set(request) - _REQUEST_FIELDS - REQUEST_OVERRIDES - _REQUEST_IGNORED)
    if unknown:
        raise ValueError(f'{path.name}: unknown field "{unknown[0]}"')
    for key, value in request.items():
        if key in _REQUEST_IGNORED:
            continue
        if (
            key in ("object", "oldObject", "namespaceObject")
            and value is not None
            and not isinstance(value, dict)
        ):
            raise ValueError(f"{path.name}: {key}: expected a mapping (a Kubernetes object)")
        if key == "userInfo" and not isinstance(value, dict):
            raise ValueError(f"{path.name}: userInfo: expected a mapping")
        put(key, value, path)


def _apply_inputs(case: TestCase, fields: dict[str, Any]) -> None:
    case.object = fields.get("object")
    case.old_object = fields.get("oldObject")
    case.params = fields.get("params", UNSET)
    case.namespace_object = fields.get("namespaceObject", UNSET)
    case.user_info = fields.get("userInfo")
    case.request = {key: fields[key] for key in REQUEST_OVERRIDES if key in fields}
    operation = fields.get("operation")
    inferred = _infer_operation(case.object is not None, case.old_object is not None)
    if operation is None:
        if inferred is None:
            raise ValueError(
                "cannot infer the operation: give an object, an oldObject or operation:"
            )
        case.operation = inferred
        return
    if operation not in ("CREATE", "UPDATE", "DELETE", "CONNECT"):
        raise ValueError(
            f'operation: Unsupported value: {operation!r}: supported values: "CREATE", "UPDATE", "DELETE", "CONNECT"'
        )
    if operation != "CONNECT" and inferred is not None and operation != inferred:
        raise ValueError(
            f"operation {operation} conflicts with the files given, which mean {inferred}"
        )
    case.operation = operation


def _infer_operation(has_object: bool, has_old: bool) -> str | None:
    if has_object and has_old:
        return "UPDATE"
    if has_object:
        return "CREATE"
    if has_old:
        return "DELETE"
    return None


def _apply_expectations(case: TestCase, token: str | None, files: dict[str, Path]) -> None:
    expect = case.expect
    if token in ("skip", "error"):
        expect.result = token
    elif token == "deny":
        expect.allowed = False
    else:
        expect.allowed = True
    # kat reads `<base>.message.txt` only from an .object.yaml or .oldObject.yaml name
    # (loadAuxiliaryFiles, parseOldObjectYAML): beside a request file alone it is not read.
    if "message" in files and files.keys() & {"object", "oldObject"}:
        expect.message_exact = read_text(files["message"], what="message file").strip()
    if "warnings" in files:
        text = read_text(files["warnings"], what="warnings file")
        expect.warnings = [line.strip() for line in text.splitlines() if line.strip()]
        expect.warnings_exact = True
    if "annotations" in files:
        annotations = load_mapping_or_empty(files["annotations"], what="annotations")
        expect.audit_annotations = {
            str(k): "" if v is None else str(v) for k, v in annotations.items()
        }
        expect.audit_annotations_subset = True
    if "authorizer" in files:
        entries = load_list(files["authorizer"], what="authorizer mocks")
        try:
            parse_entries(entries)
        except ValueError as error:
            raise ValueError(f"{files['authorizer'].name}: {error}") from None
        case.authorizer = entries
    # loadGoldFile looks for `<base>.gold.yaml` from an .object.yaml or .request.yaml name; without
    # one, kat fails a case whose policy changed the object ("policy mutated the object but no
    # .gold.yaml file was provided", internal/evaluator/evaluator.go validateTestResult).
    if "gold" in files and files.keys() & {"object", "request"}:
        expect.object = load_object(files["gold"], what="golden object")
    else:
        expect.forbid_mutation = True
