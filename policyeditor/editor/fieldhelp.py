"""One-line field help from the Kubernetes OpenAPI field docs, with per-kind overrides."""

from __future__ import annotations

import re
from functools import lru_cache

from policyeditor.engine import schemas
from policyeditor.engine.objects import ADMISSION_GROUP

REFERENCE = "https://kubernetes.io/docs/reference/kubernetes-api/admissionregistration/"
_SLUGS = {
    "ValidatingAdmissionPolicy": "validating-admission-policy-v1",
    "ValidatingAdmissionPolicyBinding": "validating-admission-policy-binding-v1",
    "MutatingAdmissionPolicy": "mutating-admission-policy-v1",
    "MutatingAdmissionPolicyBinding": "mutating-admission-policy-binding-v1",
}
# The policy kinds are cluster-scoped (admissionregistration/v1 types.go: +genclient:nonNamespaced),
# so ObjectMeta's generic "unique within a namespace" is wrong for them.
_CLUSTER_NAME = (
    "{kind} is cluster-scoped: the name is unique among all {kind} objects of the cluster "
    "(a DNS subdomain, e.g. my-policy.example.com)."
)
OVERRIDES: dict[str, dict[str, str]] = {
    "ValidatingAdmissionPolicyBinding": {
        "spec.paramRef.namespace": (
            "Namespace of the param object; empty for a cluster-scoped paramKind, or to use "
            "the namespace of the object being admitted."
        ),
        "spec.paramRef.name": "Name of the param object the policy reads as `params`.",
        "spec.policyName": "The ValidatingAdmissionPolicy this binding applies.",
    },
    "MutatingAdmissionPolicyBinding": {
        "spec.paramRef.namespace": (
            "Namespace of the param object; empty for a cluster-scoped paramKind, or to use "
            "the namespace of the object being admitted."
        ),
        "spec.paramRef.name": "Name of the param object the policy reads as `params`.",
        "spec.policyName": "The MutatingAdmissionPolicy this binding applies.",
    },
    "ValidatingAdmissionPolicy": {
        "metadata.labels": "Labels of the policy object itself (not of what it matches).",
        "metadata.annotations": "Annotations of the policy object itself.",
    },
    "MutatingAdmissionPolicy": {
        "metadata.labels": "Labels of the policy object itself (not of what it matches).",
        "metadata.annotations": "Annotations of the policy object itself.",
    },
}


@lru_cache(maxsize=1024)
def field_doc(kind: str, key_path: str) -> str:
    """The OpenAPI description of a field of a policy kind ('' when the schemas lack it)."""
    path = key_path.replace("/", ".")
    for api in ("v1", "v1beta1", "v1alpha1"):
        try:
            doc = schemas.field_doc(ADMISSION_GROUP, api, kind, path)
        except Exception:  # help is a nicety: a schema problem must never break the form
            doc = None
        if doc:
            return doc
    return ""


def first_sentence(text: str, limit: int = 160) -> str:
    """The first sentence of a field doc, cut at `limit` characters."""
    head = text.strip().split("\n", 1)[0]
    match = re.search(r"\.(\s|$)", head)
    sentence = head[: match.start() + 1] if match else head
    return sentence if len(sentence) <= limit else sentence[: limit - 1].rstrip() + "…"


def short_help(kind: str, key_path: str) -> str:
    """The one line shown under a control: an override for this kind, else the doc's first sentence."""
    path = key_path.replace("/", ".")
    if path == "metadata.name" and kind in _SLUGS:
        return _CLUSTER_NAME.format(kind=kind)
    override = OVERRIDES.get(kind, {}).get(path)
    if override:
        return override
    return first_sentence(field_doc(kind, key_path))


def reference_url(kind: str) -> str:
    """The Kubernetes API reference page of a policy kind ('' for other kinds)."""
    slug = _SLUGS.get(kind)
    return f"{REFERENCE}{slug}/" if slug else ""
