"""Defaults of the networking.k8s.io/v1 kinds: NetworkPolicy, IngressClass (Ingress has none).

Follows kubernetes/kubernetes pkg/apis/networking/v1/defaults.go (SetDefaults_NetworkPolicy,
SetDefaults_NetworkPolicyPort, SetDefaults_IngressClass) and its zz_generated.defaults.go, which runs
SetDefaults_NetworkPolicyPort on every ingress and egress rule's ports.
"""

from __future__ import annotations

from typing import Any

from policyeditor.engine.defaulting.record import Recorder, child, items


def default_network_policy(obj: dict[str, Any], rec: Recorder) -> None:
    """Ports' protocol TCP; policyTypes [Ingress] (plus Egress when egress rules are given)."""
    spec, path = child(obj, "spec", "", rec, value=True)
    if spec is None:
        return
    for key in ("ingress", "egress"):
        for rule, rule_path in items(spec, key, path):
            for port, port_path in items(rule, "ports", rule_path):
                rec.default_pointer(port, "protocol", "TCP", port_path)
    if not spec.get("policyTypes"):
        types = ["Ingress"]
        if spec.get("egress"):
            types.append("Egress")
        rec.set(spec, "policyTypes", types, path)


def default_ingress_class(obj: dict[str, Any], rec: Recorder) -> None:
    """SetDefaults_IngressClass: parameters' scope Cluster."""
    spec, path = child(obj, "spec", "", rec)
    parameters, parameters_path = child(spec, "parameters", path, rec) if spec else (None, "")
    if parameters is not None:
        rec.default_pointer(parameters, "scope", "Cluster", parameters_path)
