"""The PodSpec defaulters: pod spec, containers, probes, ports, env, volumes, image pull policy."""

from __future__ import annotations

import pytest

from policyeditor.engine.defaulting import default_object
from policyeditor.engine.defaulting.podspec import image_tag, pull_policy
from tests.builders import nested


def _pod(**spec) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": spec}


def _container(**fields) -> dict:
    return {"name": "c", "image": "nginx:1.27", **fields}


def test_a_pod_spec_gets_dns_restart_scheduler_grace_and_an_empty_security_context():
    spec = default_object(_pod(containers=[_container()])).object["spec"]
    assert spec["dnsPolicy"] == "ClusterFirst"
    assert spec["restartPolicy"] == "Always"
    assert spec["schedulerName"] == "default-scheduler"
    assert spec["terminationGracePeriodSeconds"] == 30
    assert spec["securityContext"] == {}
    assert spec["enableServiceLinks"] is True


def test_set_pod_spec_fields_are_kept():
    spec = default_object(
        _pod(containers=[_container()], restartPolicy="Never", terminationGracePeriodSeconds=0)
    ).object["spec"]
    assert (spec["restartPolicy"], spec["terminationGracePeriodSeconds"]) == ("Never", 0)


@pytest.mark.parametrize(
    ("image", "policy"),
    [
        ("nginx", "Always"),
        ("nginx:latest", "Always"),
        ("registry.example.com:5000/team/nginx", "Always"),
        ("nginx:1.27", "IfNotPresent"),
        ("nginx@sha256:" + "a" * 64, "IfNotPresent"),
        ("nginx:latest@sha256:" + "a" * 64, "Always"),
        ("Not/A/Valid:Name", "IfNotPresent"),  # ParseImageName fails: no tag, IfNotPresent
        ("", "IfNotPresent"),
    ],
)
def test_image_pull_policy_follows_the_image_tag(image, policy):
    assert pull_policy(image) == policy


def test_an_image_that_is_not_text_has_no_tag():
    assert image_tag(42) == ""


def test_every_kind_of_container_is_defaulted():
    pod = _pod(
        initContainers=[_container(name="init")],
        containers=[_container(image="nginx")],
        ephemeralContainers=[_container(name="debug")],
    )
    spec = default_object(pod).object["spec"]
    for key in ("initContainers", "containers", "ephemeralContainers"):
        container = spec[key][0]
        assert container["terminationMessagePath"] == "/dev/termination-log"
        assert container["terminationMessagePolicy"] == "File"
    assert spec["containers"][0]["imagePullPolicy"] == "Always"
    assert spec["initContainers"][0]["imagePullPolicy"] == "IfNotPresent"


def test_ports_probes_lifecycle_and_env_field_refs_are_defaulted():
    container = _container(
        ports=[{"containerPort": 80}, {"containerPort": 53, "protocol": "UDP"}],
        livenessProbe={"httpGet": {"port": 80}},
        readinessProbe={"grpc": {"port": 9000}, "periodSeconds": 5},
        startupProbe={"tcpSocket": {"port": 80}, "failureThreshold": 0},
        lifecycle={"preStop": {"httpGet": {"port": 80, "path": "/stop"}}},
        env=[{"name": "NODE", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}}],
    )
    got = default_object(_pod(containers=[container])).object["spec"]["containers"][0]
    assert [p["protocol"] for p in got["ports"]] == ["TCP", "UDP"]
    assert got["livenessProbe"] == {
        "httpGet": {"port": 80, "path": "/", "scheme": "HTTP"},
        "timeoutSeconds": 1,
        "periodSeconds": 10,
        "successThreshold": 1,
        "failureThreshold": 3,
    }
    assert got["readinessProbe"]["periodSeconds"] == 5
    assert got["readinessProbe"]["grpc"]["service"] == ""
    assert got["startupProbe"]["failureThreshold"] == 3  # 0 is Go's zero value: unset
    assert got["lifecycle"]["preStop"]["httpGet"] == {"port": 80, "path": "/stop", "scheme": "HTTP"}
    assert got["env"][0]["valueFrom"]["fieldRef"]["apiVersion"] == "v1"


def test_a_pod_requests_default_to_its_limits_but_a_template_does_not():
    limited = _container(
        resources={"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "500m"}}
    )
    pod = default_object(_pod(containers=[limited])).object
    assert pod["spec"]["containers"][0]["resources"]["requests"] == {"cpu": "500m", "memory": "1Gi"}
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "spec": {
            "template": {"spec": {"containers": [_container(resources={"limits": {"cpu": "1"}})]}}
        },
    }
    template = default_object(deployment).object["spec"]["template"]["spec"]
    assert "requests" not in template["containers"][0]["resources"]
    assert "enableServiceLinks" not in template


def test_host_network_pods_get_host_ports_equal_to_container_ports():
    pod = _pod(hostNetwork=True, containers=[_container(ports=[{"containerPort": 8080}])])
    assert default_object(pod).object["spec"]["containers"][0]["ports"][0]["hostPort"] == 8080


def test_volumes_get_their_sources_defaults():
    volumes = [
        {"name": "scratch"},
        {"name": "s", "secret": {"secretName": "x"}},
        {"name": "c", "configMap": {"name": "x", "defaultMode": 256}},
        {
            "name": "d",
            "downwardAPI": {"items": [{"path": "n", "fieldRef": {"fieldPath": "metadata.name"}}]},
        },
        {"name": "p", "projected": {"sources": [{"serviceAccountToken": {"path": "t"}}]}},
        {"name": "h", "hostPath": {"path": "/var"}},
        {
            "name": "e",
            "ephemeral": {"volumeClaimTemplate": {"spec": {"accessModes": ["ReadWriteOnce"]}}},
        },
        {"name": "r", "rbd": {"monitors": ["m"], "image": "i"}},
    ]
    got = default_object(_pod(containers=[_container()], volumes=volumes)).object["spec"]["volumes"]
    assert got[0]["emptyDir"] == {}
    assert got[1]["secret"]["defaultMode"] == 0o644
    assert got[2]["configMap"]["defaultMode"] == 256
    assert got[3]["downwardAPI"]["defaultMode"] == 0o644
    assert got[3]["downwardAPI"]["items"][0]["fieldRef"]["apiVersion"] == "v1"
    assert got[4]["projected"]["defaultMode"] == 0o644
    assert got[4]["projected"]["sources"][0]["serviceAccountToken"]["expirationSeconds"] == 3600
    assert got[5]["hostPath"]["type"] == ""
    assert got[6]["ephemeral"]["volumeClaimTemplate"]["spec"]["volumeMode"] == "Filesystem"
    assert (got[7]["rbd"]["pool"], got[7]["rbd"]["user"], got[7]["rbd"]["keyring"]) == (
        "rbd",
        "admin",
        "/etc/ceph/keyring",
    )


@pytest.mark.parametrize(("version", "expected"), [("1.34", None), ("1.35", "Always")])
def test_image_volumes_get_a_pull_policy_once_the_gate_is_on_by_default(version, expected):
    pod = _pod(containers=[_container()], volumes=[{"name": "i", "image": {"reference": "tools"}}])
    image = default_object(pod, version).object["spec"]["volumes"][0]["image"]
    assert image.get("pullPolicy") == expected


def test_the_paths_name_every_defaulted_field():
    paths = default_object(_pod(containers=[_container(ports=[{"containerPort": 80}])])).paths
    assert "spec.containers[0].ports[0].protocol" in paths
    assert "spec.containers[0].imagePullPolicy" in paths
    assert "spec.dnsPolicy" in paths


def test_wrongly_typed_parts_are_left_for_validation_to_report():
    pod = _pod(containers="nope", volumes=[None, "x", {"name": "v"}], securityContext=[1])
    got = default_object(pod).object["spec"]
    assert got["containers"] == "nope"
    assert got["securityContext"] == [1]
    assert got["volumes"][:2] == [None, "x"]
    assert got["volumes"][2]["emptyDir"] == {}


def test_a_deeply_nested_limit_is_copied_without_recursion():
    deep = nested(5000)
    pod = _pod(containers=[_container(resources={"limits": {"cpu": deep}})])
    requests = default_object(pod).object["spec"]["containers"][0]["resources"]["requests"]
    copied, original, depth = requests["cpu"], deep, 0
    while original:  # walked, not compared: == would recurse as deep as the value
        assert copied is not original and set(copied) == {"x"}
        copied, original, depth = copied["x"], original["x"], depth + 1
    assert (copied, depth) == ({}, 5000)
