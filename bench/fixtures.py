"""The realistic policy and object the benchmarks evaluate."""

from __future__ import annotations

import copy

from tests.builders import vap, vap_binding

VARIABLES = [
    ("containers", "object.spec.template.spec.containers"),
    ("replicas", "has(object.spec.replicas) ? object.spec.replicas : 1"),
    (
        "team",
        "has(object.metadata.labels) && 'team' in object.metadata.labels ? object.metadata.labels['team'] : ''",
    ),
]
MATCH_CONDITION = "!(request.userInfo.username in ['system:admin'])"
# Ten validations in standard CEL (so the pure-Python alternative can run the very same text).
VALIDATIONS = [
    ("variables.replicas <= 10", "'replicas ' + string(variables.replicas) + ' exceed 10'"),
    ("variables.team != ''", "'label team is required'"),
    ("variables.containers.all(c, !c.image.endsWith(':latest'))", "'no latest tags'"),
    (
        "variables.containers.all(c, c.image.startsWith('registry.example.com/'))",
        "'images come from registry.example.com'",
    ),
    (
        "variables.containers.all(c, has(c.resources) && has(c.resources.limits))",
        "'containers need limits'",
    ),
    (
        "variables.containers.all(c, !has(c.securityContext) || !has(c.securityContext.privileged) || c.securityContext.privileged == false)",
        "'privileged containers are not allowed'",
    ),
    ("size(variables.containers) <= 5", "'at most 5 containers'"),
    ("object.metadata.name.matches('^[a-z][-a-z0-9]*$')", "'name must be a DNS label'"),
    (
        "!has(object.spec.template.spec.hostNetwork) || object.spec.template.spec.hostNetwork == false",
        "'hostNetwork is not allowed'",
    ),
    ("variables.containers.exists(c, c.name == 'app')", "'one container must be named app'"),
]


def policy() -> dict:
    """A VAP with 10 validations, 3 variables, messageExpressions and a matchCondition."""
    return vap(
        "deployment-standards.example.com",
        failurePolicy="Fail",
        matchConditions=[{"name": "not-admin", "expression": MATCH_CONDITION}],
        variables=[{"name": n, "expression": e} for n, e in VARIABLES],
        validations=[{"expression": e, "messageExpression": m} for e, m in VALIDATIONS],
    )


def binding() -> dict:
    """The binding that enforces the policy with Deny."""
    return vap_binding("deployment-standards-binding", "deployment-standards.example.com")


_DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web", "namespace": "shop", "labels": {"app": "web", "team": "payments"}},
    "spec": {
        "replicas": 3,
        "selector": {"matchLabels": {"app": "web"}},
        "template": {
            "metadata": {"labels": {"app": "web"}},
            "spec": {
                "containers": [
                    {
                        "name": "app",
                        "image": "registry.example.com/shop/web:1.4.2",
                        "ports": [{"containerPort": 8080}],
                        "resources": {
                            "limits": {"cpu": "500m", "memory": "256Mi"},
                            "requests": {"cpu": "100m", "memory": "128Mi"},
                        },
                    },
                    {
                        "name": "sidecar",
                        "image": "registry.example.com/infra/proxy:2.0",
                        "resources": {"limits": {"cpu": "100m", "memory": "64Mi"}},
                    },
                ]
            },
        },
    },
}


def deployment(replicas: int = 3) -> dict:
    """A Deployment that passes every validation (all expressions run to the end)."""
    obj = copy.deepcopy(_DEPLOYMENT)
    obj["spec"]["replicas"] = replicas
    return obj


def request_fields() -> dict:
    """The `request` variable for a CREATE of the Deployment."""
    return {
        "kind": {"group": "apps", "version": "v1", "kind": "Deployment"},
        "resource": {"group": "apps", "version": "v1", "resource": "deployments"},
        "operation": "CREATE",
        "namespace": "shop",
        "name": "web",
        "userInfo": {"username": "alice", "groups": ["dev"]},
    }
