"""The four admission kinds, their families, and reading a document's kind, name and spec."""

from __future__ import annotations

from typing import Any

# kubernetes/kubernetes staging/src/k8s.io/api/admissionregistration/v1/types.go (and v1beta1,
# v1alpha1 for the mutating kinds): the group and the four kinds this editor works on.
ADMISSION_GROUP = "admissionregistration.k8s.io"
VAP = "ValidatingAdmissionPolicy"
VAP_BINDING = "ValidatingAdmissionPolicyBinding"
MAP = "MutatingAdmissionPolicy"
MAP_BINDING = "MutatingAdmissionPolicyBinding"

VALIDATING_KINDS = (VAP, VAP_BINDING)
MUTATING_KINDS = (MAP, MAP_BINDING)
ADMISSION_KINDS = (*VALIDATING_KINDS, *MUTATING_KINDS)
POLICY_KINDS = (VAP, MAP)
BINDING_KINDS = (VAP_BINDING, MAP_BINDING)
# The policy kind a binding kind binds (spec.policyName names one of these).
POLICY_OF = {VAP_BINDING: VAP, MAP_BINDING: MAP}


def family(kind: Any) -> str | None:
    """'validating' or 'mutating' for one of the four admission kinds, else None."""
    if kind in VALIDATING_KINDS:
        return "validating"
    if kind in MUTATING_KINDS:
        return "mutating"
    return None


def kind_of(doc: Any) -> str:
    """The kind of a document ("" when absent or not a string)."""
    kind = doc.get("kind") if isinstance(doc, dict) else None
    return kind if isinstance(kind, str) else ""


def name_of(doc: Any) -> str:
    """metadata.name of a document ("" when absent or not a string)."""
    metadata = doc.get("metadata") if isinstance(doc, dict) else None
    name = metadata.get("name") if isinstance(metadata, dict) else None
    return name if isinstance(name, str) else ""


def namespace_of(doc: Any) -> str:
    """metadata.namespace of a document ("" when absent or not a string)."""
    metadata = doc.get("metadata") if isinstance(doc, dict) else None
    namespace = metadata.get("namespace") if isinstance(metadata, dict) else None
    return namespace if isinstance(namespace, str) else ""


def spec_of(doc: Any) -> dict[str, Any]:
    """The spec mapping of a document ({} when absent or malformed)."""
    spec = doc.get("spec") if isinstance(doc, dict) else None
    return spec if isinstance(spec, dict) else {}


def group_version_kind(doc: Any) -> tuple[str, str, str] | None:
    """(group, version, kind) from a mapping's apiVersion and kind; None when they are not text."""
    if not isinstance(doc, dict):
        return None
    api_version, kind = doc.get("apiVersion"), doc.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str):
        return None
    group, _, version = api_version.rpartition("/")
    return group, version, kind


def is_admission(doc: Any) -> bool:
    """True for the four admission kinds of admissionregistration.k8s.io."""
    api_version = doc.get("apiVersion") if isinstance(doc, dict) else None
    group = api_version.split("/")[0] if isinstance(api_version, str) else ""
    return kind_of(doc) in ADMISSION_KINDS and group == ADMISSION_GROUP


def has_policy(documents: list[Any]) -> bool:
    """Whether the documents hold a ValidatingAdmissionPolicy or MutatingAdmissionPolicy."""
    return any(is_admission(doc) and kind_of(doc) in POLICY_KINDS for doc in documents)
