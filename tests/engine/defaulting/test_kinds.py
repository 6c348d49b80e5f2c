"""The registered defaulters of the workload, service, namespace and other built-in kinds."""

from __future__ import annotations

import copy

import pytest

from policyeditor.engine.defaulting import REGISTRY, default_object


def _obj(api_version: str, kind: str, spec: dict | None = None, **top) -> dict:
    doc = {"apiVersion": api_version, "kind": kind, "metadata": {"name": "x"}, **top}
    if spec is not None:
        doc["spec"] = spec
    return doc


TEMPLATE = {
    "metadata": {"labels": {"app": "web"}},
    "spec": {"containers": [{"name": "c", "image": "nginx"}]},
}


def test_a_deployment_gets_replicas_strategy_history_and_deadline():
    spec = default_object(_obj("apps/v1", "Deployment", {"template": TEMPLATE})).object["spec"]
    assert spec["replicas"] == 1
    assert spec["strategy"] == {
        "type": "RollingUpdate",
        "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"},
    }
    assert (spec["revisionHistoryLimit"], spec["progressDeadlineSeconds"]) == (10, 600)
    assert spec["template"]["spec"]["restartPolicy"] == "Always"
    assert spec["template"]["spec"]["containers"][0]["imagePullPolicy"] == "Always"


def test_a_recreate_deployment_gets_no_rolling_update():
    spec = {"strategy": {"type": "Recreate"}, "replicas": 0, "template": TEMPLATE}
    got = default_object(_obj("apps/v1", "Deployment", spec)).object["spec"]
    assert got["strategy"] == {"type": "Recreate"}
    assert got["replicas"] == 0


def test_a_daemon_set_rolls_one_at_a_time_without_surge():
    spec = default_object(_obj("apps/v1", "DaemonSet", {"template": TEMPLATE})).object["spec"]
    assert spec["updateStrategy"] == {
        "type": "RollingUpdate",
        "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 0},
    }
    assert spec["revisionHistoryLimit"] == 10


def test_a_stateful_set_gets_its_policies_and_claim_templates_their_defaults():
    claim = {"metadata": {"name": "data"}, "spec": {"accessModes": ["ReadWriteOnce"]}}
    spec = {"template": TEMPLATE, "volumeClaimTemplates": [claim]}
    got = default_object(_obj("apps/v1", "StatefulSet", spec)).object["spec"]
    assert got["podManagementPolicy"] == "OrderedReady"
    assert got["updateStrategy"] == {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}}
    assert got["persistentVolumeClaimRetentionPolicy"] == {
        "whenDeleted": "Retain",
        "whenScaled": "Retain",
    }
    assert (got["replicas"], got["revisionHistoryLimit"]) == (1, 10)
    assert got["volumeClaimTemplates"][0]["spec"]["volumeMode"] == "Filesystem"
    assert got["volumeClaimTemplates"][0]["status"] == {"phase": "Pending"}


def test_a_replica_set_gets_one_replica():
    got = default_object(_obj("apps/v1", "ReplicaSet", {"template": TEMPLATE})).object
    assert got["spec"]["replicas"] == 1


def test_a_job_gets_completions_parallelism_backoff_and_labels_from_its_template():
    got = default_object(_obj("batch/v1", "Job", {"template": TEMPLATE})).object
    spec = got["spec"]
    assert (spec["completions"], spec["parallelism"], spec["backoffLimit"]) == (1, 1, 6)
    assert (spec["completionMode"], spec["suspend"]) == ("NonIndexed", False)
    assert spec["podReplacementPolicy"] == "TerminatingOrFailed"
    assert got["metadata"]["labels"] == {"app": "web"}


def test_a_job_with_parallelism_keeps_completions_unset_and_per_index_backoff_is_unbounded():
    spec = {"parallelism": 3, "backoffLimitPerIndex": 1, "template": TEMPLATE}
    got = default_object(_obj("batch/v1", "Job", spec)).object["spec"]
    assert "completions" not in got
    assert got["backoffLimit"] == 2**31 - 1


def test_a_job_with_a_pod_failure_policy_replaces_failed_pods_and_defaults_condition_status():
    policy = {"rules": [{"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}]}
    spec = {"podFailurePolicy": policy, "template": TEMPLATE}
    got = default_object(_obj("batch/v1", "Job", spec)).object["spec"]
    assert got["podReplacementPolicy"] == "Failed"
    assert got["podFailurePolicy"]["rules"][0]["onPodConditions"][0]["status"] == "True"


def test_a_cron_job_gets_its_defaults_and_its_job_template_only_the_pod_defaults():
    spec = {"schedule": "* * * * *", "jobTemplate": {"spec": {"template": TEMPLATE}}}
    got = default_object(_obj("batch/v1", "CronJob", spec)).object["spec"]
    assert got["concurrencyPolicy"] == "Allow"
    assert (got["suspend"], got["successfulJobsHistoryLimit"], got["failedJobsHistoryLimit"]) == (
        False,
        3,
        1,
    )
    job = got["jobTemplate"]["spec"]
    assert "backoffLimit" not in job
    assert job["template"]["spec"]["dnsPolicy"] == "ClusterFirst"


def test_a_service_gets_affinity_type_protocols_target_ports_and_traffic_policies():
    spec = {"ports": [{"port": 80}, {"port": 53, "protocol": "UDP", "targetPort": "dns"}]}
    got = default_object(_obj("v1", "Service", spec)).object["spec"]
    assert (got["type"], got["sessionAffinity"], got["internalTrafficPolicy"]) == (
        "ClusterIP",
        "None",
        "Cluster",
    )
    assert got["ports"] == [
        {"port": 80, "protocol": "TCP", "targetPort": 80},
        {"port": 53, "protocol": "UDP", "targetPort": "dns"},
    ]
    assert "externalTrafficPolicy" not in got


def test_a_load_balancer_service_allocates_node_ports_and_routes_cluster_wide():
    obj = _obj(
        "v1",
        "Service",
        {"type": "LoadBalancer", "ports": [{"port": 443}]},
        status={"loadBalancer": {"ingress": [{"ip": "10.0.0.1"}]}},
    )
    got = default_object(obj).object
    assert got["spec"]["externalTrafficPolicy"] == "Cluster"
    assert got["spec"]["allocateLoadBalancerNodePorts"] is True
    assert got["status"]["loadBalancer"]["ingress"][0]["ipMode"] == "VIP"


def test_client_ip_affinity_gets_a_three_hour_timeout_and_none_drops_the_config():
    client = default_object(_obj("v1", "Service", {"sessionAffinity": "ClientIP"})).object
    assert client["spec"]["sessionAffinityConfig"] == {"clientIP": {"timeoutSeconds": 10800}}
    config = {"clientIP": {"timeoutSeconds": 5}}
    none = default_object(_obj("v1", "Service", {"sessionAffinityConfig": config})).object
    assert "sessionAffinityConfig" not in none["spec"]


def test_an_external_name_service_gets_no_internal_traffic_policy():
    got = default_object(_obj("v1", "Service", {"type": "ExternalName"})).object["spec"]
    assert "internalTrafficPolicy" not in got


def test_a_namespace_gets_its_name_label_and_phase():
    got = default_object({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "dev"}})
    assert got.object["metadata"]["labels"] == {"kubernetes.io/metadata.name": "dev"}
    assert got.object["status"] == {"phase": "Active"}
    assert "metadata.labels.kubernetes.io/metadata.name" in got.paths


def test_a_claim_gets_a_filesystem_volume_mode_and_a_pending_phase():
    got = default_object(_obj("v1", "PersistentVolumeClaim", {"resources": {}})).object
    assert got["spec"]["volumeMode"] == "Filesystem"
    assert got["status"]["phase"] == "Pending"


def test_a_network_policy_gets_tcp_ports_and_its_policy_types():
    spec = {"podSelector": {}, "ingress": [{"ports": [{"port": 80}]}], "egress": [{}]}
    got = default_object(_obj("networking.k8s.io/v1", "NetworkPolicy", spec)).object["spec"]
    assert got["ingress"][0]["ports"][0]["protocol"] == "TCP"
    assert got["policyTypes"] == ["Ingress", "Egress"]


def test_an_ingress_has_no_defaults():
    ingress = _obj("networking.k8s.io/v1", "Ingress", {"rules": [{"host": "a.example.com"}]})
    assert default_object(ingress).paths == []


def test_an_hpa_v2_gets_min_replicas_a_cpu_metric_and_filled_scaling_rules():
    spec = {"maxReplicas": 5, "behavior": {"scaleDown": {"stabilizationWindowSeconds": 60}}}
    got = default_object(_obj("autoscaling/v2", "HorizontalPodAutoscaler", spec)).object["spec"]
    assert got["minReplicas"] == 1
    assert got["metrics"] == [
        {
            "type": "Resource",
            "resource": {
                "name": "cpu",
                "target": {"type": "Utilization", "averageUtilization": 80},
            },
        }
    ]
    assert got["behavior"]["scaleUp"]["policies"][0] == {
        "type": "Pods",
        "value": 4,
        "periodSeconds": 15,
    }
    assert got["behavior"]["scaleDown"] == {
        "stabilizationWindowSeconds": 60,
        "selectPolicy": "Max",
        "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}],
    }


def test_an_hpa_v1_gets_min_replicas_only():
    got = default_object(_obj("autoscaling/v1", "HorizontalPodAutoscaler", {"maxReplicas": 3}))
    assert got.object["spec"] == {"maxReplicas": 3, "minReplicas": 1}


def test_role_bindings_get_the_rbac_group_for_users_and_groups_not_service_accounts():
    subjects = [{"kind": "User", "name": "a"}, {"kind": "ServiceAccount", "name": "b"}]
    obj = {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "RoleBinding",
        "roleRef": {"kind": "Role", "name": "r"},
        "subjects": subjects,
    }
    got = default_object(obj).object
    assert got["roleRef"]["apiGroup"] == "rbac.authorization.k8s.io"
    assert got["subjects"][0]["apiGroup"] == "rbac.authorization.k8s.io"
    assert "apiGroup" not in got["subjects"][1]


def test_a_service_account_is_registered_with_nothing_to_default():
    assert ("", "v1", "ServiceAccount") in REGISTRY
    account = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "a"}}
    assert default_object(account).paths == []


def test_the_policy_kinds_are_defaulted_through_the_registry_with_their_paths():
    policy = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": "p"},
        "spec": {"matchConstraints": {"resourceRules": [{"operations": ["CREATE"]}]}},
    }
    got = default_object(policy)
    assert got.object["spec"]["failurePolicy"] == "Fail"
    assert "spec.matchConstraints.resourceRules[0].scope" in got.paths


@pytest.mark.parametrize(
    "obj",
    [
        {"apiVersion": "example.com/v1", "kind": "Widget", "spec": {}},
        {"apiVersion": "apps/v1beta1", "kind": "Deployment", "spec": {}},
        {"kind": "Pod"},
        None,
        "text",
    ],
)
def test_objects_of_no_registered_kind_come_back_as_they_are(obj):
    got = default_object(obj)
    assert got.object is obj
    assert got.paths == []


def test_defaulting_leaves_its_input_alone_and_is_idempotent():
    deployment = _obj("apps/v1", "Deployment", {"template": copy.deepcopy(TEMPLATE)})
    before = copy.deepcopy(deployment)
    once = default_object(deployment)
    assert deployment == before
    twice = default_object(once.object)
    assert twice.object == once.object
    assert twice.paths == []


def test_a_kind_without_spec_is_defaulted_as_the_zero_valued_struct():
    got = default_object({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}})
    assert got.object["spec"]["replicas"] == 1
    assert got.object["spec"]["template"]["spec"]["dnsPolicy"] == "ClusterFirst"
