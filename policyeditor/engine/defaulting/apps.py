"""Defaults of the apps/v1 kinds: Deployment, ReplicaSet, StatefulSet, DaemonSet.

Follows kubernetes/kubernetes pkg/apis/apps/v1/defaults.go (SetDefaults_Deployment,
SetDefaults_ReplicaSet, SetDefaults_StatefulSet, SetDefaults_DaemonSet) and
pkg/apis/apps/v1/zz_generated.defaults.go, which also runs the core PodSpec defaulters on each
template and SetDefaults_PersistentVolumeClaim on each StatefulSet volumeClaimTemplate.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from policyeditor.engine.defaulting.core import default_claim
from policyeditor.engine.defaulting.podspec import default_template_of
from policyeditor.engine.defaulting.record import Recorder, child, items


def _on_spec(
    defaulter: Callable[[dict[str, Any], str, Recorder], None],
) -> Callable[[dict[str, Any], Recorder], None]:
    """The object defaulter that runs `defaulter(spec, path, rec)` on the object's spec, if any."""

    @functools.wraps(defaulter)
    def default(obj: dict[str, Any], rec: Recorder) -> None:
        spec, path = child(obj, "spec", "", rec, value=True)
        if spec is not None:
            defaulter(spec, path, rec)

    return default


def _default_rolling_update(
    spec: dict[str, Any], key: str, path: str, rec: Recorder, max_unavailable: Any, max_surge: Any
) -> None:
    """The strategy at spec[key]: type RollingUpdate and, for that type, its two limits."""
    strategy, strategy_path = child(spec, key, path, rec, value=True)
    if strategy is not None:
        rec.default(strategy, "type", "RollingUpdate", strategy_path)
        if strategy.get("type") == "RollingUpdate":
            rolling, rolling_path = child(strategy, "rollingUpdate", strategy_path, rec, value=True)
            if rolling is not None:
                rec.default_pointer(rolling, "maxUnavailable", max_unavailable, rolling_path)
                rec.default_pointer(rolling, "maxSurge", max_surge, rolling_path)


@_on_spec
def default_deployment(spec: dict[str, Any], path: str, rec: Recorder) -> None:
    """SetDefaults_Deployment: replicas 1, RollingUpdate 25%/25%, history 10, deadline 600s."""
    rec.default_pointer(spec, "replicas", 1, path)
    _default_rolling_update(spec, "strategy", path, rec, "25%", "25%")
    rec.default_pointer(spec, "revisionHistoryLimit", 10, path)
    rec.default_pointer(spec, "progressDeadlineSeconds", 600, path)
    default_template_of(spec, path, rec)


@_on_spec
def default_daemon_set(spec: dict[str, Any], path: str, rec: Recorder) -> None:
    """SetDefaults_DaemonSet: RollingUpdate with maxUnavailable 1 and maxSurge 0, history 10."""
    _default_rolling_update(spec, "updateStrategy", path, rec, 1, 0)
    rec.default_pointer(spec, "revisionHistoryLimit", 10, path)
    default_template_of(spec, path, rec)


@_on_spec
def default_stateful_set(spec: dict[str, Any], path: str, rec: Recorder) -> None:
    """SetDefaults_StatefulSet (StatefulSetAutoDeletePVC is on in every supported version)."""
    rec.default(spec, "podManagementPolicy", "OrderedReady", path)
    strategy, strategy_path = child(spec, "updateStrategy", path, rec, value=True)
    if strategy is not None:
        if strategy.get("type") in (None, ""):
            rec.set(strategy, "type", "RollingUpdate", strategy_path)
            if strategy.get("rollingUpdate") is None:
                strategy["rollingUpdate"] = {}  # takes the partition default below
        if strategy.get("type") == "RollingUpdate":
            rolling, rolling_path = child(strategy, "rollingUpdate", strategy_path, rec)
            if rolling is not None:
                rec.default_pointer(rolling, "partition", 0, rolling_path)
    # StatefulSetAutoDeletePVC: beta and on since 1.27, GA in 1.32.
    retention, retention_path = child(
        spec, "persistentVolumeClaimRetentionPolicy", path, rec, value=True
    )
    if retention is not None:
        rec.default(retention, "whenDeleted", "Retain", retention_path)
        rec.default(retention, "whenScaled", "Retain", retention_path)
    rec.default_pointer(spec, "replicas", 1, path)
    rec.default_pointer(spec, "revisionHistoryLimit", 10, path)
    default_template_of(spec, path, rec)
    for claim, claim_path in items(spec, "volumeClaimTemplates", path):
        default_claim(claim, claim_path, rec)


@_on_spec
def default_replica_set(spec: dict[str, Any], path: str, rec: Recorder) -> None:
    """SetDefaults_ReplicaSet: replicas 1."""
    rec.default_pointer(spec, "replicas", 1, path)
    default_template_of(spec, path, rec)
