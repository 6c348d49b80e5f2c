"""Defaults of the batch/v1 kinds: Job and CronJob.

Follows kubernetes/kubernetes pkg/apis/batch/v1/defaults.go (SetDefaults_Job, SetDefaults_CronJob,
SetDefaults_PodFailurePolicyOnPodConditionsPattern) and pkg/apis/batch/v1/zz_generated.defaults.go:
a CronJob's jobTemplate gets the PodSpec and pod-failure-policy defaults, not SetDefaults_Job.
"""

from __future__ import annotations

from typing import Any

from policyeditor.engine.defaulting.podspec import default_template_of
from policyeditor.engine.defaulting.record import Recorder, child, items

MAX_INT32 = 2**31 - 1


def _default_job_spec_nested(spec: dict[str, Any], path: str, rec: Recorder) -> None:
    """The nested types' defaults: the pod template and podFailurePolicy condition patterns."""
    policy, policy_path = child(spec, "podFailurePolicy", path, rec)
    if policy is not None:
        for rule, rule_path in items(policy, "rules", policy_path):
            for pattern, pattern_path in items(rule, "onPodConditions", rule_path):
                rec.default(pattern, "status", "True", pattern_path)
    default_template_of(spec, path, rec)


def default_job(obj: dict[str, Any], rec: Recorder) -> None:
    """SetDefaults_Job (JobPodReplacementPolicy is on in every supported version)."""
    spec, path = child(obj, "spec", "", rec, value=True)
    if spec is None:
        return
    if spec.get("completions") is None and spec.get("parallelism") is None:
        rec.set(spec, "completions", 1, path)
    rec.default_pointer(spec, "parallelism", 1, path)
    if spec.get("backoffLimit") is None:
        per_index = spec.get("backoffLimitPerIndex") is not None
        rec.set(spec, "backoffLimit", MAX_INT32 if per_index else 6, path)
    template = spec.get("template")
    metadata = template.get("metadata") if isinstance(template, dict) else None
    labels = metadata.get("labels") if isinstance(metadata, dict) else None
    meta, meta_path = child(obj, "metadata", "", rec, value=True)
    if isinstance(labels, dict) and meta is not None and not meta.get("labels"):
        rec.set(meta, "labels", dict(labels), meta_path)
    rec.default_pointer(spec, "completionMode", "NonIndexed", path)
    rec.default_pointer(spec, "suspend", False, path)
    # JobPodReplacementPolicy: beta and on since 1.29, GA in 1.34.
    if spec.get("podReplacementPolicy") is None:
        failed = spec.get("podFailurePolicy") is not None
        rec.set(spec, "podReplacementPolicy", "Failed" if failed else "TerminatingOrFailed", path)
    _default_job_spec_nested(spec, path, rec)


def default_cron_job(obj: dict[str, Any], rec: Recorder) -> None:
    """SetDefaults_CronJob: Allow, not suspended, history limits 3 and 1."""
    spec, path = child(obj, "spec", "", rec, value=True)
    if spec is None:
        return
    rec.default(spec, "concurrencyPolicy", "Allow", path)
    rec.default_pointer(spec, "suspend", False, path)
    rec.default_pointer(spec, "successfulJobsHistoryLimit", 3, path)
    rec.default_pointer(spec, "failedJobsHistoryLimit", 1, path)
    template, template_path = child(spec, "jobTemplate", path, rec, value=True)
    if template is not None:
        job_spec, job_path = child(template, "spec", template_path, rec, value=True)
        if job_spec is not None:
            _default_job_spec_nested(job_spec, job_path, rec)
