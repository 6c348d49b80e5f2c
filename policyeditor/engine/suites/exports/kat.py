"""Saved cases as kat directories: `policy.yaml` (and `binding.yaml`) beside `tests/`.

The layout is zemanlx/kat's (its README and internal/loader): test files are named
`<policy>.<test>.<expect>.<type>.yaml` with `<expect>` one of allow, deny, warn, audit and
`<type>` one of object, oldObject, request, params, namespaceObject, authorizer; side files
`<base>.message.txt`, `.warnings.txt`, `.annotations.yaml` and `.gold.yaml` add expectations. kat
evaluates a test through every binding of its directory, so cases are grouped by the binding they
go through (none: the policy alone). kat has no skip or error expectation, no resources to resolve
a paramRef against and no Kubernetes version: such cases are left out or listed as not checked.
"""

from __future__ import annotations

from typing import Any

from policyeditor.engine.manifests.dump import dump_documents
from policyeditor.engine.objects import name_of
from policyeditor.engine.suites.exports.common import (
    CaseInput,
    Export,
    bare_namespace,
    request_namespace,
    slug,
    unported_options,
)
from policyeditor.engine.suites.formats.kat import REQUEST_OVERRIDES

EXPECTS = ("allow", "deny", "warn", "audit")
HOW = (
    "kat directories, one per policy and binding: run them with `kat .` or `policyeditor test .` "
    "(kat carries no Kubernetes version: both run them at the newest they know)."
)


def case_files(item: CaseInput, export: Export) -> tuple[str, dict[str, str]]:
    """The folder of one case and its files (file name -> text); ValueError: left out."""
    case, parts = item.case, item.parts()
    policy, binding, expect = parts.policy, parts.binding, parts.expect
    result = expect.get("result") or (
        "allow" if "object" in expect or "allowed" in expect else None
    )
    if expect.get("allowed") is False and not expect.get("result"):
        result = "deny"
    if result not in EXPECTS:
        raise ValueError(f"kat has no {result or 'missing'} expectation (allow, deny, warn, audit)")
    spec = binding.get("spec") if binding else None
    if isinstance(spec, dict) and spec.get("paramRef") and "params" not in case:
        raise ValueError("kat cannot resolve a paramRef: give the case inline params")
    unknown = sorted(set(case.get("request") or {}) - REQUEST_OVERRIDES)
    if unknown:
        raise ValueError(f"kat's request file has no {', '.join(unknown)}")
    folder = slug(name_of(policy)) + (f"--{slug(name_of(binding))}" if binding else "")
    files = {"policy.yaml": dump_documents([policy])}
    if binding is not None:
        files["binding.yaml"] = dump_documents([binding])
    base = f"tests/{name_of(policy)}.{item.index:02d}-{slug(item.label)}.{result}"
    obj, old = case.get("object"), case.get("oldObject")
    for key, value in (("object", obj), ("oldObject", old), ("params", case.get("params"))):
        if value is not None:
            files[f"{base}.{key}.yaml"] = dump_documents([value])
    namespace = request_namespace(obj if isinstance(obj, dict) else old, item.version)
    namespace_object = case.get("namespaceObject")
    if namespace_object is None and namespace:
        # without one kat matches every namespaceSelector; the API server reads the namespace,
        # which (not modelled by the case) carries only its automatic label
        namespace_object = bare_namespace(namespace)
    if namespace_object is not None:
        files[f"{base}.namespaceObject.yaml"] = dump_documents([namespace_object])
    request = dict(case.get("request") or {})
    if case.get("userInfo"):
        request["userInfo"] = case["userInfo"]
    if case.get("operation"):
        request["operation"] = case["operation"]
    if request:
        files[f"{base}.request.yaml"] = dump_documents([request])
    if case.get("authorizer"):
        files[f"{base}.authorizer.yaml"] = _list_yaml(case["authorizer"])
    if "object" in expect and (obj is not None or request):
        files[f"{base}.gold.yaml"] = dump_documents([expect["object"]])
    if expect.get("auditAnnotations"):
        files[f"{base}.annotations.yaml"] = dump_documents([expect["auditAnnotations"]])
    _weakened(case, expect, parts.mutating, item.label, export)
    return folder, files


def _list_yaml(entries: list[Any]) -> str:
    """A top-level YAML list (kat's authorizer file), dumped through the mapping dumper."""
    lines = dump_documents([{"entries": entries}]).splitlines()[1:]
    # the dumper may indent the list under its key; a top-level list starts at column 0
    indent = len(lines[0]) - len(lines[0].lstrip()) if lines else 0
    return "\n".join(line[indent:] for line in lines) + "\n"


def _weakened(
    case: dict[str, Any], expect: dict[str, Any], mutating: bool, label: str, export: Export
) -> None:
    lost = []
    if expect.get("messages"):
        lost.append("messages (kat compares one whole message, the case substrings)")
    if expect.get("warnings"):
        lost.append("warnings (kat compares whole warnings, the case substrings)")
    if expect.get("auditAnnotations") == {}:
        lost.append("that there are no audit annotations")
    elif expect.get("auditAnnotations"):
        lost.append("that no other audit annotations are added (kat checks the ones listed)")
    if mutating and "object" not in expect:
        lost.append("kat also fails the case if the policy mutates the object (no expected object)")
    lost += unported_options(case)
    if lost:
        export.weakened.append(f"{label}: {'; '.join(lost)}")
