"""Kubernetes OpenAPI schemas: lookup, list/map types, docs and the built-in resource table."""

from __future__ import annotations

import json

import pytest

from policyeditor.engine import schemas


def deployment(version: str = "1.37") -> dict:
    root = schemas.schema_for("apps", "v1", "Deployment", version)
    assert root is not None
    return root


def test_schema_for_returns_the_deployment_schema_with_its_properties():
    root = deployment()
    assert {"apiVersion", "kind", "metadata", "spec", "status"} <= set(root["properties"])


def test_schema_for_an_unknown_kind_is_none():
    assert schemas.schema_for("example.com", "v1", "Widget", "1.37") is None


def test_containers_are_a_list_map_keyed_by_name():
    containers = schemas.schema_at_path(deployment(), "spec.template.spec.containers")
    assert schemas.list_type(containers) == "map"
    assert schemas.list_map_keys(containers) == ("name",)


def test_container_ports_are_keyed_by_port_and_protocol_through_the_type_name_path():
    ports = schemas.schema_at_path(deployment(), "spec.template.spec.containers.ports")
    assert schemas.list_map_keys(ports) == ("containerPort", "protocol")
    indexed = schemas.schema_at_path(deployment(), "spec.template.spec.containers[0].ports")
    assert indexed == ports


def test_atomic_markers_are_read_from_structs_and_lists():
    root = deployment()
    assert schemas.is_atomic(schemas.schema_at_path(root, "spec.selector"))
    assert schemas.is_atomic(schemas.schema_at_path(root, "spec.template.spec.tolerations"))
    assert schemas.is_atomic(schemas.schema_at_path(root, "spec.template.spec.containers.command"))
    assert not schemas.is_atomic(schemas.schema_at_path(root, "metadata.labels"))
    assert not schemas.is_atomic(schemas.schema_at_path(root, "spec.template"))


def test_labels_are_a_granular_string_map():
    labels = schemas.schema_at_path(deployment(), "metadata.labels")
    assert schemas.map_type(labels) == "granular"
    assert not schemas.is_struct_schema(labels)
    assert schemas.schema_types(schemas.child_schema(labels, "anything")) == {"string"}


def test_an_unknown_field_has_no_schema():
    assert schemas.schema_at_path(deployment(), "spec.replicasx") is None


def test_field_doc_gives_the_openapi_description():
    doc = schemas.field_doc("apps", "v1", "Deployment", "spec.replicas", "1.37")
    assert doc is not None and "Number of desired pods" in doc
    assert schemas.field_doc("apps", "v1", "Deployment", "spec.nope", "1.37") is None


def test_resolved_schemas_are_json_serialisable():
    json.dumps(schemas.schema_at_path(deployment(), "spec.template.spec"))


def test_mutating_admission_policy_v1_exists_only_from_1_36():
    assert (
        schemas.schema_for("admissionregistration.k8s.io", "v1", "MutatingAdmissionPolicy", "1.35")
        is None
    )
    assert schemas.schema_for(
        "admissionregistration.k8s.io", "v1", "MutatingAdmissionPolicy", "1.36"
    )


def test_a_malformed_version_falls_back_to_the_default_schemas():
    assert schemas.schema_for("apps", "v1", "Deployment", "not-a-version") == deployment()


def test_builtin_resources_know_plural_scope_and_subresources():
    pods = schemas.resource_for_kind("", "v1", "Pod", "1.34")
    assert pods is not None
    assert (pods.plural, pods.namespaced) == ("pods", True)
    assert {"exec", "status", "eviction"} <= set(pods.subresources)
    namespaces = schemas.resource_for_kind("", "v1", "Namespace", "1.34")
    assert namespaces is not None and namespaces.namespaced is False


def test_every_resource_kind_in_the_schemas_is_in_the_curated_table():
    for version in ("1.30", "1.37"):
        listed = {(info.group, info.kind) for info in schemas.builtin_resources(version)}
        index = schemas.gvk_index(version)
        defs = schemas.definitions(version)
        for (group, _v, kind), name in index.items():
            if kind.endswith("List") or (group, kind) in schemas.NOT_RESOURCES:
                continue
            if schemas.is_resource_schema(defs[name]):
                assert (group, kind) in listed, (version, group, kind)


def test_kind_for_resource_finds_deployments():
    info = schemas.kind_for_resource("apps", "v1", "deployments", "1.37")
    assert info is not None and info.kind == "Deployment"
    assert schemas.kind_for_resource("apps", "v1", "widgets", "1.37") is None


@pytest.mark.parametrize(
    ("kind", "plural"),
    [("Widget", "widgets"), ("Policy", "policies"), ("Ingress", "ingresses"), ("Key", "keys")],
)
def test_guess_plural_follows_the_api_machinery_rule(kind, plural):
    assert schemas.guess_plural(kind) == plural


def test_deployments_are_equivalent_across_apps_and_extensions():
    equivalents = schemas.equivalent_resources("apps", "v1", "deployments", "1.37")
    assert ("extensions", "v1beta1", "deployments") in equivalents
    assert ("apps", "v1", "deployments") not in equivalents
    back = schemas.equivalent_resources("extensions", "v1beta1", "deployments", "1.37")
    assert back[0] == ("apps", "v1", "deployments") or ("apps", "v1", "deployments") in back


def test_scale_subresource_carries_an_autoscaling_scale():
    assert schemas.subresource_kind("apps", "v1", "Deployment", "deployments", "scale") == (
        "autoscaling",
        "v1",
        "Scale",
    )
    assert schemas.subresource_kind("", "v1", "Pod", "pods", "status") == ("", "v1", "Pod")
