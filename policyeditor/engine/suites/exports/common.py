"""What every export shares: the Export result, picking a case's policy, objects and namespace.

The input is what a PolicyTest bundle holds (the revision's documents, its Kubernetes version and
the saved cases as PolicyTest case mappings); each layout writes the files its own tool reads and
lists, case by case, what it could not carry over (a case it leaves out, or an expectation it
cannot check), so the export never claims more than the other tool will test.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from policyeditor.engine.objects import BINDING_KINDS, MAP, POLICY_KINDS, name_of, namespace_of
from policyeditor.engine.schemas.resources import resource_for_kind

# Case fields that read parts from files: saved cases are inline, a bundle import inlines them.
FILE_FIELDS = ("objectFile", "oldObjectFile", "paramsFile", "namespaceObjectFile")


@dataclass
class Export:
    """File path (relative, '/'-separated) -> text, and what the export could not carry over."""

    files: dict[str, str] = field(default_factory=dict)
    left_out: list[str] = field(default_factory=list)  # "<case>: why", cases not exported
    weakened: list[str] = field(default_factory=list)  # "<case>: what is not checked"

    def readme(self, title: str, how: str) -> str:
        """A README.md saying how to run the export and what it does not carry over."""
        lines = [f"# {title}", "", how, ""]
        if self.left_out:
            lines += ["## Cases left out", ""] + [f"- {item}" for item in self.left_out] + [""]
        if self.weakened:
            lines += ["## Expectations not checked", ""]
            lines += [f"- {item}" for item in self.weakened] + [""]
        return "\n".join(lines)


@dataclass(frozen=True)
class CaseParts:
    """What a case evaluates: its policy, its binding (None: the policy alone) and its expectation."""

    policy: dict[str, Any]
    binding: dict[str, Any] | None
    expect: dict[str, Any]

    @property
    def mutating(self) -> bool:
        """Whether the policy is a MutatingAdmissionPolicy."""
        return self.policy.get("kind") == MAP


@dataclass(frozen=True)
class CaseInput:
    """One saved case as an export reads it: the case, its place in the list and the revision."""

    case: dict[str, Any]
    index: int
    documents: list[dict[str, Any]]
    version: str

    @property
    def label(self) -> str:
        """How the export names the case in its notes: its name, else its place in the list."""
        return str(self.case.get("name") or f"case {self.index}")

    def parts(self) -> CaseParts:
        """The inline case's policy, binding and expectation; ValueError for what an export cannot take."""
        return case_parts(self.case, self.documents)


def case_inputs(
    documents: list[dict[str, Any]], cases: list[dict[str, Any]], version: str
) -> list[CaseInput]:
    """The cases of a revision, numbered from 1."""
    return [CaseInput(case, index, documents, version) for index, case in enumerate(cases, 1)]


# A layout's writer of one case: (case, export) -> (folder, file name -> text).
CaseWriter = Callable[[CaseInput, Export], tuple[str, dict[str, str]]]


def export_folders(
    items: list[CaseInput], write: CaseWriter, name: str, title: str, how: str
) -> Export:
    """Each case written by `write` into its folder under `<name>/`, and the README."""
    export = Export()
    for item in items:
        try:
            folder, files = write(item, export)
        except ValueError as error:
            export.left_out.append(f"{item.label}: {error}")
            continue
        for filename, text in files.items():
            export.files[f"{name}/{folder}/{filename}"] = text
    export.files[f"{name}/README.md"] = export.readme(title, how)
    return export


def slug(name: str) -> str:
    """A file-name part: letters, digits, '-' and '_' ('.' separates kat's name segments)."""
    safe = re.sub(r"[^A-Za-z0-9_-]+", "-", name).strip("-")
    return safe or "case"


def case_parts(case: dict[str, Any], documents: list[dict[str, Any]]) -> CaseParts:
    """The inline case's policy, binding and expectation; ValueError for what an export cannot take."""
    check_inline(case)
    policy = case_policy(case, documents)
    return CaseParts(policy, case_binding(case, policy, documents), expectation(case))


def unported_options(case: dict[str, Any]) -> list[str]:
    """The case's run options no other tool takes (the defaulting switch, a Kubernetes version)."""
    lost = []
    if case.get("defaulting") is False:
        lost.append("defaulting: false")
    if case.get("kubernetesVersion"):
        lost.append(f"kubernetesVersion {case['kubernetesVersion']}")
    return lost


def case_policy(case: dict[str, Any], documents: list[dict[str, Any]]) -> dict[str, Any]:
    """The policy document a case evaluates; ValueError when it names none or several are there."""
    policies = [d for d in documents if d.get("kind") in POLICY_KINDS]
    name = case.get("policy")
    if isinstance(name, str) and name:
        found = [d for d in policies if name_of(d) == name]
        if not found:
            raise ValueError(f"policy {name!r} is not in the revision")
        return found[0]
    if len(policies) != 1:
        raise ValueError("the revision holds several policies and the case names none")
    return policies[0]


def case_binding(
    case: dict[str, Any], policy: dict[str, Any], documents: list[dict[str, Any]]
) -> dict[str, Any] | None:
    """The binding a case evaluates through (None: the policy alone, as PolicyTest does)."""
    name = case.get("binding")
    if not name:
        return None
    for doc in documents:
        if doc.get("kind") in BINDING_KINDS and name_of(doc) == name:
            return doc
    raise ValueError(f"binding {name!r} is not in the revision")


def other_objects(documents: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The revision's documents that are not policies or bindings (param objects, namespaces)."""
    return [d for d in documents if d.get("kind") not in (*POLICY_KINDS, *BINDING_KINDS)]


def request_namespace(obj: dict[str, Any] | None, version: str) -> str:
    """The namespace a request about `obj` is in: its own, "default" for namespaced kinds (kubectl)."""
    if not isinstance(obj, dict):
        return ""
    if namespace_of(obj):
        return namespace_of(obj)
    group, _, api_version = str(obj.get("apiVersion", "")).rpartition("/")
    info = resource_for_kind(group, api_version, str(obj.get("kind", "")), version)
    return "default" if info is not None and info.namespaced else ""


def bare_namespace(name: str) -> dict[str, Any]:
    """A namespace as the cluster stores it with no labels of its own (only the automatic one)."""
    return {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": name, "labels": {"kubernetes.io/metadata.name": name}},
    }


def check_inline(case: dict[str, Any]) -> None:
    """ValueError for a case that reads its parts from files (an export writes inline cases)."""
    for key in FILE_FIELDS:
        if key in case:
            raise ValueError(f"{key} is not supported in an export; inline the part")
    expect = case.get("expect")
    if isinstance(expect, dict) and "objectFile" in expect:
        raise ValueError("expect.objectFile is not supported in an export; inline the object")


def expectation(case: dict[str, Any]) -> dict[str, Any]:
    """A case's `expect` mapping ({} when absent or not a mapping)."""
    expect = case.get("expect")
    return expect if isinstance(expect, dict) else {}
