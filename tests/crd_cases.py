"""One case per real CRD of tests/data/external/crds: fields to read, misspell, merge and refuse.

The engine, CLI, API and browser tests share this table, so each surface is tested on the same
CRDs with the same expectations. A row names the CRD file and kind and what differs per CRD; the
group, version (the storage one), plural and scope are read from the CRD itself. `widget_crd` is
the small hand-written CRD of the tests that build schemas of their own.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from policyeditor.engine.manifests import load_file
from tests.vectors import external_path


@dataclass(frozen=True)
class CrdCase:
    """A CRD file and what a policy on its kind should see."""

    id: str
    file: str
    group: str
    version: str
    kind: str
    plural: str
    namespaced: bool
    obj: dict[str, Any]
    valid: str  # true for `obj` and free of type-check warnings
    denied_change: tuple[str, Any]  # (dotted path, value) that makes `valid` false
    typo: str  # reads a misspelled field
    typo_field: str
    param_valid: str  # reads `params` (a `obj` of the same kind) without warnings
    param_typo: str
    param_typo_field: str
    completion_path: str  # after `object.`
    completion_field: str  # a field offered there
    completion_expect: tuple[str, str]  # ("detail" or "type", text it starts with)
    list_map: str  # an ApplyConfiguration merging into a list map
    list_map_check: tuple[str, Any]  # (dotted path, value) in the mutated object
    list_map_kept: str  # a dotted path the merge leaves as it was
    atomic: str  # an ApplyConfiguration setting an atomic list
    atomic_path: str  # the path SMD reports

    @property
    def path(self) -> Path:
        """The CRD file (the shared copy when present)."""
        return crd_file(self.file)

    @property
    def api_version(self) -> str:
        """apiVersion of the kind's case version."""
        return f"{self.group}/{self.version}"

    def crds(self) -> list[dict[str, Any]]:
        """The documents of the CRD file, as the entry points load them."""
        return load_file(str(self.path))

    def object(self, name: str = "sample") -> dict[str, Any]:
        """A valid custom resource of the kind."""
        obj = copy.deepcopy(self.obj)
        obj["apiVersion"], obj["kind"] = self.api_version, self.kind
        meta = obj.setdefault("metadata", {})
        meta["name"] = name
        if self.namespaced:
            meta["namespace"] = "default"
        return obj

    def denied_object(self) -> dict[str, Any]:
        """The valid object with the one change that makes `valid` false."""
        obj = self.object()
        path, value = self.denied_change
        set_path(obj, path, value)
        return obj

    def rule(self) -> dict[str, Any]:
        """A resource rule matching the kind at the case version."""
        return {
            "apiGroups": [self.group],
            "apiVersions": [self.version],
            "operations": ["CREATE", "UPDATE"],
            "resources": [self.plural],
        }

    def vap(self, *expressions: str, params: bool = False) -> dict[str, Any]:
        """A ValidatingAdmissionPolicy on the kind with one validation per expression."""
        spec: dict[str, Any] = {
            "failurePolicy": "Fail",
            "matchConstraints": {"resourceRules": [self.rule()]},
            "validations": [{"expression": e} for e in expressions],
        }
        if params:
            spec["paramKind"] = {"apiVersion": self.api_version, "kind": self.kind}
        return {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicy",
            "metadata": {"name": f"{self.id}-policy"},
            "spec": spec,
        }

    def binding(self, param_name: str = "") -> dict[str, Any]:
        """A binding of `vap()` (with a paramRef by name when given)."""
        spec: dict[str, Any] = {
            "policyName": f"{self.id}-policy",
            "validationActions": ["Deny"],
        }
        if param_name:
            spec["paramRef"] = {"name": param_name, "parameterNotFoundAction": "Deny"}
            if self.namespaced:
                spec["paramRef"]["namespace"] = "default"
        return {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicyBinding",
            "metadata": {"name": f"{self.id}-binding"},
            "spec": spec,
        }

    def map(self, expression: str) -> dict[str, Any]:
        """A MutatingAdmissionPolicy applying one ApplyConfiguration to the kind."""
        return {
            "apiVersion": "admissionregistration.k8s.io/v1beta1",
            "kind": "MutatingAdmissionPolicy",
            "metadata": {"name": f"{self.id}-mutation"},
            "spec": {
                "failurePolicy": "Fail",
                "reinvocationPolicy": "Never",
                "matchConstraints": {"resourceRules": [self.rule()]},
                "mutations": [
                    {
                        "patchType": "ApplyConfiguration",
                        "applyConfiguration": {"expression": expression},
                    }
                ],
            },
        }


def set_path(obj: dict[str, Any], path: str, value: Any) -> None:
    """Set a dotted path ("spec.groups.0.name": list indexes as numbers)."""
    parts = path.split(".")
    target: Any = obj
    for part in parts[:-1]:
        target = target[int(part)] if isinstance(target, list) else target.setdefault(part, {})
    last = parts[-1]
    if isinstance(target, list):
        target[int(last)] = value
    else:
        target[last] = value


def get_path(obj: Any, path: str) -> Any:
    """Read a dotted path (list indexes as numbers); None when absent."""
    for part in path.split("."):
        if isinstance(obj, list):
            obj = obj[int(part)] if int(part) < len(obj) else None
        elif isinstance(obj, dict):
            obj = obj.get(part)
        else:
            return None
    return obj


TABLE = Path(__file__).parent / "data" / "crd_cases.yaml"
WIDGET_SPEC = {
    "type": "object",
    "properties": {"size": {"type": "integer"}, "color": {"type": "string"}},
}


def widget_crd(spec: dict[str, Any] | None = None, *, root: dict[str, Any] | None = None) -> dict:
    """widgets.example.com: a small namespaced CRD (kind Widget, v1 only), a fresh copy each call.

    Its schema is `root`, else an object whose `spec` has the schema `spec` (by default an integer
    `size` and a string `color`).
    """
    schema = root or {"type": "object", "properties": {"spec": spec or WIDGET_SPEC}}
    version = {"name": "v1", "served": True, "storage": True}
    version["schema"] = {"openAPIV3Schema": copy.deepcopy(schema)}
    names = {"plural": "widgets", "kind": "Widget", "singular": "widget"}
    crd_spec = {"group": "example.com", "scope": "Namespaced", "names": names}
    crd_spec["versions"] = [version]
    meta = {"name": "widgets.example.com"}
    crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition"}
    return {**crd, "metadata": meta, "spec": crd_spec}


def widget(**spec: Any) -> dict[str, Any]:
    """A Widget custom resource named w with the given spec."""
    return {
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {"name": "w"},
        "spec": spec,
    }


def crd_file(file: str) -> Path:
    """A CRD file of the external material (the shared copy when present)."""
    return external_path("crds", *file.split("/"))


def _case(row: dict[str, Any]) -> CrdCase:
    """A case from one row of tests/data/crd_cases.yaml (its header says what each key is)."""
    text = crd_file(row["file"]).read_text()
    crd = next(
        d
        for d in yaml.load_all(text, yaml.CSafeLoader)
        if d["spec"]["names"]["kind"] == row["kind"]
    )
    spec = crd["spec"]
    params = row["params"]
    [(field, misspelled)] = params["misspell"].items()
    before, _, after = params["expression"].rpartition(field)
    completion, merge, atomic = row["completion"], row["listMap"], row["atomic"]
    expect = "detail" if "detail" in completion else "type"
    return CrdCase(
        id=row["kind"].lower(),
        file=row["file"],
        group=spec["group"],
        version=next(v["name"] for v in spec["versions"] if v.get("storage")),
        kind=row["kind"],
        plural=spec["names"]["plural"],
        namespaced=spec["scope"] == "Namespaced",
        obj=row["object"],
        valid=row["valid"],
        denied_change=(row["denied"]["path"], row["denied"]["value"]),
        typo=row["typo"]["expression"],
        typo_field=row["typo"]["field"],
        param_valid=params["expression"],
        param_typo=before + misspelled + after,
        param_typo_field=misspelled,
        completion_path=completion["path"],
        completion_field=completion["field"],
        completion_expect=(expect, completion[expect]),
        list_map=merge["expression"],
        list_map_check=(merge["path"], merge["value"]),
        list_map_kept=merge["kept"],
        atomic=atomic["expression"],
        atomic_path=atomic["path"],
    )


CASES = [_case(row) for row in yaml.safe_load(TABLE.read_text())]

BY_ID = {case.id: case for case in CASES}
