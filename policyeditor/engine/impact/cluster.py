"""The cluster around a dump's object: the Namespace admission finds for it, the policies in force.

Impact analysis asks what the cluster would answer, where `admission.evaluate` answers for a
lone policy as if it were bound: so only bound policies are evaluated (the others are listed, to
warn of them), and an object's namespace always exists, since the object is in it.
"""

from __future__ import annotations

from typing import Any

from policyeditor.engine import admission, schemas
from policyeditor.engine.jsontypes import object_at
from policyeditor.engine.objects import name_of

# The label the API server puts on every Namespace (kubernetes/kubernetes
# pkg/apis/core/v1/defaults.go, SetDefaults_Namespace).
NAME_LABEL = "kubernetes.io/metadata.name"


def bare_namespace(name: str) -> dict[str, Any]:
    """A Namespace called `name` with only the label every Namespace carries."""
    return {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": name, "labels": {NAME_LABEL: name}},
    }


def _is_namespace(doc: Any) -> bool:
    return (
        isinstance(doc, dict)
        and doc.get("kind") == "Namespace"
        and doc.get("apiVersion", "v1") == "v1"
    )


def namespace_for(
    documents: list[dict[str, Any]], name: str, found: dict[str, Any] | None
) -> dict[str, Any] | None:
    """The Namespace admission finds for an object in namespace `name` ("": cluster-scoped)."""
    if not name:
        return None
    # `found` is the dump's (or --namespaces') Namespace of that name, None when the input holds
    # none: then a bare one stands in, for the namespace exists in the cluster the object is in.
    namespace = found if isinstance(found, dict) else bare_namespace(name)
    # A Namespace of that name among `documents` (the draft, which its author applies) goes over
    # it: its labels and annotations are added, replacing the values of the same keys, as
    # `kubectl apply` leaves a live object's other labels in place.
    for doc in documents:
        if _is_namespace(doc) and name_of(doc) == name:
            namespace = _applied(namespace, doc)
    return namespace


def kind_scope_known(obj: dict[str, Any], version: str) -> bool:
    """Whether the schemas (built-in kinds, the CRDs in force) know if `obj`'s kind is namespaced."""
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str):
        return False
    group, _, group_version = api_version.rpartition("/")
    return schemas.resource_for_kind(group, group_version, kind, version) is not None


def _applied(live: dict[str, Any], doc: dict[str, Any]) -> dict[str, Any]:
    """`live` with the labels and annotations of `doc` added (a copy: both stay as they are)."""
    metadata = dict(object_at(live, "metadata"))
    for key in ("labels", "annotations"):
        given = object_at(object_at(doc, "metadata"), key)
        if given:
            metadata[key] = {**object_at(metadata, key), **given}
    return {**live, "metadata": metadata}


def unbound_policies(documents: list[dict[str, Any]], version: str) -> list[dict[str, str]]:
    """Each policy of `documents` no binding references ({"kind", "name"}): it acts on nothing."""
    return [
        {"kind": kind, "name": name}
        for kind, name in admission.unbound_policies(documents, version)
    ]


def unbound_warning(policies: list[dict[str, str]], where: str) -> str:
    """The warning that these policies have no binding in `where` ("" when there are none)."""
    if not policies:
        return ""
    names = ", ".join(f"{p['kind']} {p['name']!r}" for p in policies)
    if len(policies) == 1:
        policy = policies[0]
        how = f"bind it with a {policy['kind']}Binding whose policyName is {policy['name']!r}"
    else:
        how = "bind each with a binding whose policyName names it"
    return (
        f"{names} {'has' if len(policies) == 1 else 'have'} no binding in {where}: a cluster "
        f"ignores a policy no binding references, and so did this analysis ({how})"
    )
