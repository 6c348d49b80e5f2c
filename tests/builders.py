"""Builders of the documents tests share: rules, policies, bindings and the objects they admit."""

from __future__ import annotations

from typing import Any

ADMISSION_V1 = "admissionregistration.k8s.io/v1"


def rules(
    resources: str = "deployments",
    *,
    group: str = "apps",
    operations: tuple[str, ...] = ("CREATE", "UPDATE"),
    **extra: Any,
) -> dict:
    """matchConstraints / matchResources with one resource rule (group/v1 `resources`)."""
    rule = {
        "apiGroups": [group],
        "apiVersions": ["v1"],
        "operations": list(operations),
        "resources": [resources],
        **extra,
    }
    return {"resourceRules": [rule]}


def document(kind: str, name: str, spec: dict, *, api_version: str = ADMISSION_V1) -> dict:
    """An object of `kind` called `name` with `spec`."""
    return {"apiVersion": api_version, "kind": kind, "metadata": {"name": name}, "spec": spec}


def vap(name: str = "limit", *, api_version: str = ADMISSION_V1, **spec: Any) -> dict:
    """A ValidatingAdmissionPolicy on deployments unless spec says otherwise."""
    body = {"matchConstraints": rules(), **spec}
    return document("ValidatingAdmissionPolicy", name, body, api_version=api_version)


def vap_binding(
    name: str = "limit-binding", policy: str = "limit", actions: tuple = ("Deny",), **spec: Any
) -> dict:
    """A ValidatingAdmissionPolicyBinding of `policy` with `actions`."""
    body = {"policyName": policy, "validationActions": list(actions), **spec}
    return document("ValidatingAdmissionPolicyBinding", name, body)


def bound(*policies: dict, actions: tuple = ("Deny",)) -> list[dict]:
    """Each policy followed by a binding of it (`<name>-binding`): what a cluster evaluates."""
    documents = []
    for policy in policies:
        name, kind = policy["metadata"]["name"], policy["kind"] + "Binding"
        spec: dict[str, Any] = {"policyName": name}
        if kind == "ValidatingAdmissionPolicyBinding":
            spec["validationActions"] = list(actions)
        binding = document(kind, f"{name}-binding", spec, api_version=policy["apiVersion"])
        documents += [policy, binding]
    return documents


def replica_limit(
    limit: int = 5,
    message: str | None = None,
    *,
    name: str = "replica-limit.example.com",
    **spec: Any,
) -> dict:
    """The sample VAP: deployments may have at most `limit` replicas, failurePolicy Fail."""
    text = message if message is not None else f"must be at most {limit}"
    check = {"expression": f"object.spec.replicas <= {limit}", "message": text}
    body = {"failurePolicy": "Fail", "matchConstraints": rules(), "validations": [check], **spec}
    return document("ValidatingAdmissionPolicy", name, body)


def deployment(
    name: str = "web", namespace: str = "default", replicas: int = 3, labels: dict | None = None
) -> dict:
    """An apps/v1 Deployment with `replicas`."""
    metadata: dict[str, Any] = {"name": name, "namespace": namespace}
    if labels is not None:
        metadata["labels"] = labels
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": metadata,
        "spec": {"replicas": replicas},
    }


def json_values(scalars: Any) -> Any:
    """A hypothesis strategy of JSON-like values: `scalars` nested in small lists and mappings."""
    from hypothesis import strategies as st

    return st.recursive(
        scalars,
        lambda inner: (
            st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
        ),
        max_leaves=12,
    )


def namespace(name: str, **labels: str) -> dict:
    """A Namespace called `name`, with `labels` if any are given."""
    metadata: dict[str, Any] = {"name": name}
    if labels:
        metadata["labels"] = labels
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": metadata}


def nested(depth: int, key: str = "x") -> dict:
    """{key: {key: ... {}}}, `depth` levels deep: for tests that must not recurse."""
    deep: dict = {}
    node = deep
    for _ in range(depth):
        node[key] = {}
        node = node[key]
    return deep


def widget_crd(spec_properties: dict) -> dict:
    """The CRD of namespaced example.com/v1 Widgets whose `spec` has `spec_properties`."""
    spec_schema = {"type": "object", "properties": spec_properties}
    version = {
        "name": "v1",
        "served": True,
        "storage": True,
        "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": spec_schema}}},
    }
    body = {
        "group": "example.com",
        "names": {"kind": "Widget", "plural": "widgets"},
        "scope": "Namespaced",
        "versions": [version],
    }
    return document(
        "CustomResourceDefinition",
        "widgets.example.com",
        body,
        api_version="apiextensions.k8s.io/v1",
    )
