"""The template gallery (YAML data files in starters/) and blank documents for new drafts."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

from policyeditor.editor.models import POLICY_KINDS, Kind
from policyeditor.engine.manifests.loading import load_documents
from policyeditor.engine.objects import ADMISSION_GROUP
from policyeditor.engine.versions import DEFAULT_VERSION, preferred_api_version

STARTERS_DIR = Path(__file__).resolve().parent / "starters"


@dataclass(frozen=True)
class Starter:
    """One gallery entry: a ready-to-use policy with its binding (and params)."""

    slug: str
    title: str
    summary: str
    kind: str
    text: str

    def documents(self) -> list[dict]:
        """A fresh copy of the starter's Kubernetes documents."""
        return load_documents(self.text, source=f"{self.slug}.yaml")

    def expressions(self) -> list[str]:
        """The starter's CEL expressions (validations, mutations), for the gallery's preview."""
        found = []
        for doc in self.documents():
            spec = doc.get("spec")
            if not isinstance(spec, dict):
                continue
            for item in spec.get("validations") or []:
                found.append(str(item.get("expression", "")))
            for item in spec.get("mutations") or []:
                for key in ("applyConfiguration", "jsonPatch"):
                    if isinstance(item.get(key), dict):
                        found.append(str(item[key].get("expression", "")))
        return [text.strip() for text in found if text.strip()]


def _header(text: str) -> dict[str, str]:
    """The `# key: value` comment lines at the top of a starter file."""
    fields: dict[str, str] = {}
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        key, _, value = line.lstrip("# ").partition(":")
        fields[key.strip()] = value.strip()
    return fields


@cache
def starters() -> tuple[Starter, ...]:
    """All gallery starters, ordered by file name."""
    result = []
    for path in sorted(STARTERS_DIR.glob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        head = _header(text)
        result.append(
            Starter(
                slug=path.stem,
                title=head.get("title", path.stem),
                summary=head.get("summary", ""),
                kind=Kind(head.get("kind", "VAP")),
                text=text,
            )
        )
    return tuple(result)


def get_starter(slug: str) -> Starter | None:
    """The starter called `slug`, or None."""
    return next((s for s in starters() if s.slug == slug), None)


def scratch_documents(kind: str, name: str, version: str = DEFAULT_VERSION) -> list[dict]:
    """A blank policy (only its name) and its binding: "From scratch" starts empty.

    The form then shows the required fields as errors to fill; the minimal working policy of
    blank_documents stays for the gallery and the tests.
    """
    kind = Kind(kind)
    policy_kind = POLICY_KINDS[kind]
    api = preferred_api_version(policy_kind, version) or "v1"
    binding_spec: dict = {"policyName": name}
    if kind == Kind.VAP:
        binding_spec["validationActions"] = ["Deny"]
    return [
        {
            "apiVersion": f"{ADMISSION_GROUP}/{api}",
            "kind": policy_kind,
            "metadata": {"name": name},
            "spec": {},
        },
        {
            "apiVersion": f"{ADMISSION_GROUP}/{api}",
            "kind": f"{policy_kind}Binding",
            "metadata": {"name": f"{name}-binding"},
            "spec": binding_spec,
        },
    ]


def blank_documents(kind: str, name: str, version: str = DEFAULT_VERSION) -> list[dict]:
    """A minimal policy and binding of `kind` (VAP or MAP) that passes validation."""
    kind = Kind(kind)
    policy_kind = POLICY_KINDS[kind]
    api = preferred_api_version(policy_kind, version) or "v1"
    rules = [
        {
            "apiGroups": ["apps"],
            "apiVersions": ["v1"],
            "operations": ["CREATE", "UPDATE"],
            "resources": ["deployments"],
        }
    ]
    spec: dict = {"failurePolicy": "Fail", "matchConstraints": {"resourceRules": rules}}
    if kind == Kind.VAP:
        spec["validations"] = [
            {"expression": "object.spec.replicas <= 5", "message": "at most 5 replicas"}
        ]
        binding_spec: dict = {"policyName": name, "validationActions": ["Deny"]}
    else:
        spec["reinvocationPolicy"] = "Never"
        spec["mutations"] = [
            {
                "patchType": "ApplyConfiguration",
                "applyConfiguration": {
                    "expression": (
                        'Object{metadata: Object.metadata{labels: {"team": "platform"}}}'
                    )
                },
            }
        ]
        binding_spec = {"policyName": name}
    return [
        {
            "apiVersion": f"{ADMISSION_GROUP}/{api}",
            "kind": policy_kind,
            "metadata": {"name": name},
            "spec": spec,
        },
        {
            "apiVersion": f"{ADMISSION_GROUP}/{api}",
            "kind": f"{policy_kind}Binding",
            "metadata": {"name": f"{name}-binding"},
            "spec": binding_spec,
        },
    ]
