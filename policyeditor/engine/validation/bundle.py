"""Advice about how the documents of a bundle fit together (never API errors, only warnings).

The API server accepts each object on its own, so a binding whose policy is missing, or a
paramRef the policy cannot use, is not an error; at admission time it silently does nothing.
These warnings say so before the bundle reaches a cluster.
"""

from __future__ import annotations

from typing import Any

from policyeditor.engine.errors import FieldError

_BINDING_OF = {
    "ValidatingAdmissionPolicyBinding": "ValidatingAdmissionPolicy",
    "MutatingAdmissionPolicyBinding": "MutatingAdmissionPolicy",
}


def _name(doc: dict[str, Any]) -> str:
    meta = doc.get("metadata")
    name = meta.get("name") if isinstance(meta, dict) else None
    return name if isinstance(name, str) else ""


def _spec(doc: dict[str, Any]) -> dict[str, Any]:
    spec = doc.get("spec")
    return spec if isinstance(spec, dict) else {}


def bundle_warnings(docs: list[Any]) -> list[tuple[int, FieldError]]:
    """Bindings without their policy, paramRefs without paramKind and the reverse, by document."""
    policies: dict[tuple[str, str], dict[str, Any]] = {}
    for doc in docs:
        kind = doc.get("kind") if isinstance(doc, dict) else None
        if isinstance(kind, str) and kind in _BINDING_OF.values() and _name(doc):
            policies.setdefault((doc["kind"], _name(doc)), doc)
    found: list[tuple[int, FieldError]] = []
    for position, doc in enumerate(docs):
        kind = doc.get("kind") if isinstance(doc, dict) else None
        if not isinstance(kind, str) or kind not in _BINDING_OF:
            continue
        spec = _spec(doc)
        policy_name = spec.get("policyName")
        if not isinstance(policy_name, str) or not policy_name:
            continue
        policy_kind = _BINDING_OF[doc["kind"]]
        policy = policies.get((policy_kind, policy_name))
        if policy is None:
            found.append(
                (
                    position,
                    FieldError(
                        "spec.policyName",
                        f"no {policy_kind} {policy_name!r} in these documents: a binding whose "
                        "policy does not exist is silently ignored",
                    ),
                )
            )
            continue
        has_param_kind = _spec(policy).get("paramKind") is not None
        has_param_ref = spec.get("paramRef") is not None
        if has_param_ref and not has_param_kind:
            found.append(
                (
                    position,
                    FieldError(
                        "spec.paramRef",
                        f"policy {policy_name!r} has no paramKind, so this paramRef is ignored",
                    ),
                )
            )
        elif has_param_kind and not has_param_ref:
            found.append(
                (
                    position,
                    FieldError(
                        "spec.paramRef",
                        f"policy {policy_name!r} has a paramKind but this binding no paramRef: "
                        "`params` is null in its expressions",
                    ),
                )
            )
    return found
