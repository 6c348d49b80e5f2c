"""Defaults of HorizontalPodAutoscaler (autoscaling/v1 and autoscaling/v2).

Follows kubernetes/kubernetes pkg/apis/autoscaling/v2/defaults.go (SetDefaults_HorizontalPodAutoscaler,
SetDefaults_HorizontalPodAutoscalerBehavior, GenerateHPAScaleUpRules, GenerateHPAScaleDownRules) and
pkg/apis/autoscaling/v1/defaults.go (minReplicas only).
"""

from __future__ import annotations

import copy
from typing import Any

from policyeditor.engine.defaulting.record import Recorder, child

# pkg/apis/autoscaling DefaultCPUUtilization.
CPU_UTILIZATION = 80
# The rules that repeat the HPA's behaviour before `behavior` existed.
_SCALE_UP = {
    "stabilizationWindowSeconds": 0,
    "selectPolicy": "Max",
    "policies": [
        {"type": "Pods", "value": 4, "periodSeconds": 15},
        {"type": "Percent", "value": 100, "periodSeconds": 15},
    ],
}
# Scale-down leaves stabilizationWindowSeconds unset: the controller's flag decides it.
_SCALE_DOWN = {
    "selectPolicy": "Max",
    "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}],
}


def default_hpa_v1(obj: dict[str, Any], rec: Recorder) -> None:
    """autoscaling/v1: minReplicas 1."""
    spec, path = child(obj, "spec", "", rec, value=True)
    if spec is not None:
        rec.default_pointer(spec, "minReplicas", 1, path)


def _rules(given: object, defaults: dict[str, Any], path: str, rec: Recorder) -> dict[str, Any]:
    """copyHPAScalingRules: the defaults overridden by every non-null field given."""
    rules = copy.deepcopy(defaults)
    given = given if isinstance(given, dict) else {}
    for key, value in given.items():
        if value is not None:
            rules[key] = value
    for key in defaults:
        if given.get(key) is None:
            rec.paths.append(f"{path}.{key}")
    return rules


def default_hpa_v2(obj: dict[str, Any], rec: Recorder) -> None:
    """autoscaling/v2: minReplicas 1, a CPU 80% metric when none is given, behavior's rules."""
    spec, path = child(obj, "spec", "", rec, value=True)
    if spec is None:
        return
    rec.default_pointer(spec, "minReplicas", 1, path)
    if not spec.get("metrics"):
        metric = {
            "type": "Resource",
            "resource": {
                "name": "cpu",
                "target": {"type": "Utilization", "averageUtilization": CPU_UTILIZATION},
            },
        }
        rec.set(spec, "metrics", [metric], path)
    behavior, behavior_path = child(spec, "behavior", path, rec)
    if behavior is not None:
        for key, defaults in (("scaleUp", _SCALE_UP), ("scaleDown", _SCALE_DOWN)):
            current = behavior.get(key)
            if current is not None and not isinstance(current, dict):
                continue
            behavior[key] = _rules(current, defaults, f"{behavior_path}.{key}", rec)
