"""Advice about how the documents of a bundle fit together (never API errors, only warnings).

The API server accepts each object on its own, so a binding whose policy is missing, or a
paramRef the policy cannot use, is not an error; at admission time it silently does nothing.
These warnings say so before the bundle reaches a cluster.
"""

from __future__ import annotations

from typing import Any

from policyeditor.engine.errors import FieldError
from policyeditor.engine.objects import POLICY_OF, name_of, spec_of


def bundle_warnings(docs: list[Any]) -> list[tuple[int, FieldError]]:
    """Bindings without their policy, paramRefs without paramKind and the reverse, by document."""
    policies: dict[tuple[str, str], dict[str, Any]] = {}
    for doc in docs:
        kind = doc.get("kind") if isinstance(doc, dict) else None
        if isinstance(kind, str) and kind in POLICY_OF.values() and name_of(doc):
            policies.setdefault((doc["kind"], name_of(doc)), doc)
    found: list[tuple[int, FieldError]] = []
    for position, doc in enumerate(docs):
        kind = doc.get("kind") if isinstance(doc, dict) else None
        if not isinstance(kind, str) or kind not in POLICY_OF:
            continue
        spec = spec_of(doc)
        policy_name = spec.get("policyName")
        if not isinstance(policy_name, str) or not policy_name:
            continue
        policy_kind = POLICY_OF[doc["kind"]]
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
        has_param_kind = spec_of(policy).get("paramKind") is not None
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
