"""Structured merge of ApplyConfiguration values with list types and atomicity from the schemas."""

from __future__ import annotations

import pytest

from policyeditor.engine.admission.mutating.patch.applyconfig import ApplyError, apply_configuration


def deployment(spec=None, metadata=None):
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": metadata or {},
        "spec": spec or {},
    }


def containers(*items):
    return {"template": {"spec": {"containers": list(items)}}}


def pod_spec(obj):
    return obj["spec"]["template"]["spec"]


def test_scalars_are_replaced_and_other_fields_kept():
    live = deployment({"replicas": 1, "paused": True})
    out = apply_configuration(live, {"spec": {"replicas": 3}})
    assert out["spec"] == {"replicas": 3, "paused": True}


def test_labels_merge_key_by_key():
    live = deployment(metadata={"labels": {"environment": "test"}})
    out = apply_configuration(live, {"metadata": {"labels": {"applied": "updated"}}})
    assert out["metadata"]["labels"] == {"environment": "test", "applied": "updated"}


def test_list_map_items_merge_by_key_and_new_items_go_last():
    live = deployment(containers({"name": "a", "image": "a:1"}, {"name": "b", "image": "b:1"}))
    patch = {"spec": containers({"name": "b", "image": "b:2"}, {"name": "c", "image": "c:1"})}
    out = apply_configuration(live, patch)
    assert pod_spec(out)["containers"] == [
        {"name": "a", "image": "a:1"},
        {"name": "b", "image": "b:2"},
        {"name": "c", "image": "c:1"},
    ]


def test_volumes_gain_a_new_item_and_keep_the_old():
    live = deployment({"template": {"spec": {"volumes": [{"name": "x", "emptyDir": {}}]}}})
    patch = {
        "spec": {"template": {"spec": {"volumes": [{"name": "y", "hostPath": {"path": "/y"}}]}}}
    }
    out = apply_configuration(live, patch)
    assert [v["name"] for v in pod_spec(out)["volumes"]] == ["x", "y"]


def test_shared_items_follow_the_patch_order():
    live = deployment(containers({"name": "a"}, {"name": "b"}, {"name": "c"}))
    patch = {"spec": containers({"name": "c", "image": "c"}, {"name": "a", "image": "a"})}
    out = apply_configuration(live, patch)
    assert [c["name"] for c in pod_spec(out)["containers"]] == ["b", "c", "a"]


def test_ports_are_keyed_by_port_and_protocol():
    live = deployment(
        containers({"name": "a", "ports": [{"containerPort": 80, "protocol": "TCP"}]})
    )
    patch = {"spec": containers({"name": "a", "ports": [{"containerPort": 80, "protocol": "UDP"}]})}
    out = apply_configuration(live, patch)
    assert pod_spec(out)["containers"][0]["ports"] == [
        {"containerPort": 80, "protocol": "TCP"},
        {"containerPort": 80, "protocol": "UDP"},
    ]


def test_set_lists_union_by_value_in_merge_order():
    # typed/merge.go: patch items come in patch order, the live-only "b" follows its predecessor.
    live = deployment(metadata={"finalizers": ["a", "b"]})
    out = apply_configuration(live, {"metadata": {"finalizers": ["c", "a"]}})
    assert out["metadata"]["finalizers"] == ["c", "a", "b"]


@pytest.mark.parametrize(
    ("patch", "paths"),
    [
        ({"spec": {"selector": {"matchLabels": {"a": "b"}}}}, ".spec.selector"),
        (
            {"spec": containers({"name": "a", "command": ["sh"]})},
            ".spec.template.spec.containers[0].command",
        ),
        ({"spec": {"template": {"spec": {"tolerations": []}}}}, ".spec.template.spec.tolerations"),
    ],
)
def test_atomic_fields_are_refused_with_the_kubernetes_error(patch, paths):
    with pytest.raises(ApplyError) as info:
        apply_configuration(deployment(containers({"name": "a"})), patch)
    assert str(info.value) == (
        "error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: "
        + paths
    )


def test_unknown_fields_are_not_declared_in_schema():
    with pytest.raises(ApplyError) as info:
        apply_configuration(deployment({"replicas": 1}), {"spec": {"replicasx": 1}})
    assert str(info.value) == (
        "error applying patch: failed to convert patch object to typed object: .spec.replicasx: field not declared in schema"
    )


def test_a_list_map_item_without_its_key_is_refused():
    with pytest.raises(ApplyError) as info:
        apply_configuration(
            deployment(containers({"name": "a"})), {"spec": containers({"image": "x"})}
        )
    assert 'omits key field "name"' in str(info.value)


def test_kinds_without_a_schema_merge_maps_and_replace_lists():
    live = {"apiVersion": "example.com/v1", "kind": "Widget", "spec": {"a": 1, "l": [1, 2]}}
    out = apply_configuration(live, {"spec": {"b": 2, "l": [3]}})
    assert out["spec"] == {"a": 1, "b": 2, "l": [3]}


def test_a_non_object_patch_is_an_error():
    with pytest.raises(ApplyError):
        apply_configuration(deployment(), "not an object")


@pytest.mark.parametrize(
    ("patch", "message"),
    [
        (
            {"metadata": {"labels": {"a": 1}}},
            ".metadata.labels.a: expected string, got &value.valueUnstructured{Value:1}",
        ),
        (
            {"spec": {"replicas": "3"}},
            ".spec.replicas: expected numeric (int or float), got string",
        ),
        ({"spec": {"paused": "yes"}}, ".spec.paused: expected boolean, got &{yes}"),
        ({"spec": {"template": "x"}}, ".spec.template: expected map, got &{x}"),
    ],
)
def test_wrong_types_are_refused_with_the_structured_merge_wording(patch, message):
    with pytest.raises(ApplyError) as info:
        apply_configuration(deployment(), patch)
    assert str(info.value) == (
        "error applying patch: failed to convert patch object to typed object: " + message
    )
