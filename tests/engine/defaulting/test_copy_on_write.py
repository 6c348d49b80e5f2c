"""Defaulting copies only what it writes: the input stays as given, whatever the kind."""

from __future__ import annotations

import copy

import pytest

from policyeditor.engine.defaulting import default_object

_CONTAINER = {
    "name": "c",
    "image": "nginx",
    "ports": [{"containerPort": 80}],
    "env": [{"name": "N", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}],
    "resources": {"limits": {"cpu": "1"}, "requests": {"memory": "1Gi"}},
    "livenessProbe": {"httpGet": {"port": 80}},
    "lifecycle": {"preStop": {"httpGet": {"port": 80}}},
}
_POD_SPEC = {
    "hostNetwork": True,
    "containers": [_CONTAINER],
    "volumes": [
        {"name": "s", "secret": {"secretName": "s"}},
        {"name": "p", "projected": {"sources": [{"serviceAccountToken": {"path": "t"}}]}},
        {"name": "e", "ephemeral": {"volumeClaimTemplate": {"spec": {}}}},
    ],
}
_TEMPLATE = {"metadata": {"labels": {"app": "web"}}, "spec": _POD_SPEC}

# One object of each registered kind family whose nested containers get defaults written into them.
OBJECTS = {
    "Pod": {"apiVersion": "v1", "kind": "Pod", "spec": _POD_SPEC},
    "Deployment": {"apiVersion": "apps/v1", "kind": "Deployment", "spec": {"template": _TEMPLATE}},
    "StatefulSet": {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "spec": {
            "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {}},
            "template": _TEMPLATE,
            "volumeClaimTemplates": [{"spec": {}}],
        },
    },
    "ReplicationController": {
        "apiVersion": "v1",
        "kind": "ReplicationController",
        "metadata": {"name": "rc"},
        "spec": {"template": _TEMPLATE},
    },
    "Namespace": {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": "dev", "labels": {"team": "a"}},
    },
    "Service": {
        "apiVersion": "v1",
        "kind": "Service",
        "spec": {"type": "LoadBalancer", "ports": [{"port": 80}]},
        "status": {"loadBalancer": {"ingress": [{"ip": "10.0.0.1"}]}},
    },
    "CronJob": {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "spec": {
            "jobTemplate": {
                "spec": {
                    "podFailurePolicy": {"rules": [{"onPodConditions": [{"type": "X"}]}]},
                    "template": _TEMPLATE,
                }
            }
        },
    },
    "NetworkPolicy": {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "spec": {"ingress": [{"ports": [{"port": 80}]}]},
    },
    "HorizontalPodAutoscaler": {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "spec": {"behavior": {"scaleUp": {"selectPolicy": "Min"}}},
    },
    "RoleBinding": {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "RoleBinding",
        "roleRef": {"kind": "Role", "name": "r"},
        "subjects": [{"kind": "User", "name": "u"}],
    },
    "Endpoints": {
        "apiVersion": "v1",
        "kind": "Endpoints",
        "subsets": [{"ports": [{"port": 80}]}],
    },
}


@pytest.mark.parametrize("kind", sorted(OBJECTS))
def test_defaulting_writes_into_copies_and_never_into_the_input(kind):
    given = copy.deepcopy(OBJECTS[kind])
    before = copy.deepcopy(given)
    got = default_object(given)
    assert got.paths
    assert given == before
    assert got.object != before


def test_the_branches_no_defaulter_walks_into_are_shared_with_the_input():
    given = copy.deepcopy(OBJECTS["Deployment"])
    given["metadata"] = {"name": "web", "labels": {"app": "web"}}
    got = default_object(given).object
    assert got is not given
    assert got["metadata"] is given["metadata"]
    container = got["spec"]["template"]["spec"]["containers"][0]
    assert container is not given["spec"]["template"]["spec"]["containers"][0]
    assert container["resources"] is given["spec"]["template"]["spec"]["containers"][0]["resources"]
