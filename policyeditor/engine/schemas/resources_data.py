"""Curated data about built-in API resources that the OpenAPI schemas do not carry."""

from __future__ import annotations

# (group, kind) -> (plural, namespaced, subresources). The schemas give group/version/kind only;
# plural names, scope and subresources come from the API server's discovery documents.
BUILTIN_RESOURCE_TABLE: dict[tuple[str, str], tuple[str, bool, tuple[str, ...]]] = {
    ("", "Binding"): ("bindings", True, ()),
    ("", "ComponentStatus"): ("componentstatuses", False, ()),
    ("", "ConfigMap"): ("configmaps", True, ()),
    ("", "Endpoints"): ("endpoints", True, ()),
    ("", "Event"): ("events", True, ()),
    ("", "LimitRange"): ("limitranges", True, ()),
    ("", "Namespace"): ("namespaces", False, ("status", "finalize")),
    ("", "Node"): ("nodes", False, ("status", "proxy")),
    ("", "PersistentVolume"): ("persistentvolumes", False, ("status",)),
    ("", "PersistentVolumeClaim"): ("persistentvolumeclaims", True, ("status",)),
    ("", "Pod"): (
        "pods",
        True,
        (
            "status",
            "binding",
            "eviction",
            "exec",
            "attach",
            "portforward",
            "proxy",
            "log",
            "ephemeralcontainers",
            "resize",
        ),
    ),
    ("", "PodTemplate"): ("podtemplates", True, ()),
    ("", "ReplicationController"): ("replicationcontrollers", True, ("status", "scale")),
    ("", "ResourceQuota"): ("resourcequotas", True, ("status",)),
    ("", "Secret"): ("secrets", True, ()),
    ("", "Service"): ("services", True, ("status", "proxy")),
    ("", "ServiceAccount"): ("serviceaccounts", True, ("token",)),
    ("admissionregistration.k8s.io", "MutatingAdmissionPolicy"): (
        "mutatingadmissionpolicies",
        False,
        (),
    ),
    ("admissionregistration.k8s.io", "MutatingAdmissionPolicyBinding"): (
        "mutatingadmissionpolicybindings",
        False,
        (),
    ),
    ("admissionregistration.k8s.io", "MutatingWebhookConfiguration"): (
        "mutatingwebhookconfigurations",
        False,
        (),
    ),
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy"): (
        "validatingadmissionpolicies",
        False,
        ("status",),
    ),
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding"): (
        "validatingadmissionpolicybindings",
        False,
        (),
    ),
    ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration"): (
        "validatingwebhookconfigurations",
        False,
        (),
    ),
    ("apiextensions.k8s.io", "CustomResourceDefinition"): (
        "customresourcedefinitions",
        False,
        ("status",),
    ),
    ("apiregistration.k8s.io", "APIService"): ("apiservices", False, ("status",)),
    ("apps", "ControllerRevision"): ("controllerrevisions", True, ()),
    ("apps", "DaemonSet"): ("daemonsets", True, ("status",)),
    ("apps", "Deployment"): ("deployments", True, ("status", "scale")),
    ("apps", "ReplicaSet"): ("replicasets", True, ("status", "scale")),
    ("apps", "StatefulSet"): ("statefulsets", True, ("status", "scale")),
    ("authentication.k8s.io", "SelfSubjectReview"): ("selfsubjectreviews", False, ()),
    ("authentication.k8s.io", "TokenReview"): ("tokenreviews", False, ()),
    ("authorization.k8s.io", "LocalSubjectAccessReview"): ("localsubjectaccessreviews", True, ()),
    ("authorization.k8s.io", "SelfSubjectAccessReview"): ("selfsubjectaccessreviews", False, ()),
    ("authorization.k8s.io", "SelfSubjectRulesReview"): ("selfsubjectrulesreviews", False, ()),
    ("authorization.k8s.io", "SubjectAccessReview"): ("subjectaccessreviews", False, ()),
    ("autoscaling", "HorizontalPodAutoscaler"): ("horizontalpodautoscalers", True, ("status",)),
    ("batch", "CronJob"): ("cronjobs", True, ("status",)),
    ("batch", "Job"): ("jobs", True, ("status",)),
    ("certificates.k8s.io", "CertificateSigningRequest"): (
        "certificatesigningrequests",
        False,
        ("status", "approval"),
    ),
    ("certificates.k8s.io", "ClusterTrustBundle"): ("clustertrustbundles", False, ()),
    ("certificates.k8s.io", "PodCertificateRequest"): (
        "podcertificaterequests",
        True,
        ("status",),
    ),
    ("coordination.k8s.io", "Lease"): ("leases", True, ()),
    ("coordination.k8s.io", "LeaseCandidate"): ("leasecandidates", True, ()),
    ("discovery.k8s.io", "EndpointSlice"): ("endpointslices", True, ()),
    ("events.k8s.io", "Event"): ("events", True, ()),
    ("flowcontrol.apiserver.k8s.io", "FlowSchema"): ("flowschemas", False, ("status",)),
    ("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration"): (
        "prioritylevelconfigurations",
        False,
        ("status",),
    ),
    ("internal.apiserver.k8s.io", "StorageVersion"): ("storageversions", False, ("status",)),
    ("lifecycle.k8s.io", "EvictionRequest"): ("evictionrequests", True, ("status",)),
    ("networking.k8s.io", "IPAddress"): ("ipaddresses", False, ()),
    ("networking.k8s.io", "Ingress"): ("ingresses", True, ("status",)),
    ("networking.k8s.io", "IngressClass"): ("ingressclasses", False, ()),
    ("networking.k8s.io", "NetworkPolicy"): ("networkpolicies", True, ()),
    ("networking.k8s.io", "ServiceCIDR"): ("servicecidrs", False, ("status",)),
    ("node.k8s.io", "RuntimeClass"): ("runtimeclasses", False, ()),
    ("policy", "PodDisruptionBudget"): ("poddisruptionbudgets", True, ("status",)),
    ("rbac.authorization.k8s.io", "ClusterRole"): ("clusterroles", False, ()),
    ("rbac.authorization.k8s.io", "ClusterRoleBinding"): ("clusterrolebindings", False, ()),
    ("rbac.authorization.k8s.io", "Role"): ("roles", True, ()),
    ("rbac.authorization.k8s.io", "RoleBinding"): ("rolebindings", True, ()),
    ("resource.k8s.io", "DeviceClass"): ("deviceclasses", False, ()),
    ("resource.k8s.io", "DeviceTaintRule"): ("devicetaintrules", False, ("status",)),
    ("resource.k8s.io", "PodSchedulingContext"): ("podschedulingcontexts", True, ("status",)),
    ("resource.k8s.io", "ResourceClaim"): ("resourceclaims", True, ("status",)),
    ("resource.k8s.io", "ResourceClaimParameters"): ("resourceclaimparameters", True, ()),
    ("resource.k8s.io", "ResourceClaimTemplate"): ("resourceclaimtemplates", True, ()),
    ("resource.k8s.io", "ResourceClass"): ("resourceclasses", False, ()),
    ("resource.k8s.io", "ResourceClassParameters"): ("resourceclassparameters", True, ()),
    ("resource.k8s.io", "ResourcePoolStatusRequest"): (
        "resourcepoolstatusrequests",
        False,
        ("status",),
    ),
    ("resource.k8s.io", "ResourceSlice"): ("resourceslices", False, ()),
    ("scheduling.k8s.io", "CompositePodGroup"): ("compositepodgroups", True, ("status",)),
    ("scheduling.k8s.io", "PodGroup"): ("podgroups", True, ("status",)),
    ("scheduling.k8s.io", "PriorityClass"): ("priorityclasses", False, ()),
    ("scheduling.k8s.io", "Workload"): ("workloads", True, ()),
    ("storage.k8s.io", "CSIDriver"): ("csidrivers", False, ()),
    ("storage.k8s.io", "CSINode"): ("csinodes", False, ()),
    ("storage.k8s.io", "CSIStorageCapacity"): ("csistoragecapacities", True, ()),
    ("storage.k8s.io", "StorageClass"): ("storageclasses", False, ()),
    ("storage.k8s.io", "VolumeAttachment"): ("volumeattachments", False, ("status",)),
    ("storage.k8s.io", "VolumeAttributesClass"): ("volumeattributesclasses", False, ()),
    ("storagemigration.k8s.io", "StorageVersionMigration"): (
        "storageversionmigrations",
        False,
        ("status",),
    ),
}

# Kinds that only exist as subresource bodies (or request options) and have no REST collection.
NOT_RESOURCES: frozenset[tuple[str, str]] = frozenset(
    {
        ("", "Status"),
        ("resource.k8s.io", "Status"),
        ("authentication.k8s.io", "TokenRequest"),
        ("autoscaling", "Scale"),
        ("policy", "Eviction"),
        ("lifecycle.k8s.io", "Eviction"),
    }
)

# The kind of the body a subresource request carries, when it differs from the parent's kind.
# (group, parent plural, subresource) -> (group, version, kind); "*" matches any parent.
SUBRESOURCE_KINDS: dict[tuple[str, str, str], tuple[str, str, str]] = {
    ("*", "*", "scale"): ("autoscaling", "v1", "Scale"),
    ("", "pods", "eviction"): ("policy", "v1", "Eviction"),
    ("", "pods", "binding"): ("", "v1", "Binding"),
    ("", "pods", "exec"): ("", "v1", "PodExecOptions"),
    ("", "pods", "attach"): ("", "v1", "PodAttachOptions"),
    ("", "pods", "portforward"): ("", "v1", "PodPortForwardOptions"),
    ("", "pods", "proxy"): ("", "v1", "PodProxyOptions"),
    ("", "pods", "log"): ("", "v1", "PodLogOptions"),
    ("", "nodes", "proxy"): ("", "v1", "NodeProxyOptions"),
    ("", "services", "proxy"): ("", "v1", "ServiceProxyOptions"),
    ("", "serviceaccounts", "token"): ("authentication.k8s.io", "v1", "TokenRequest"),
}

# Resources stored once but served under several groups (matchPolicy: Equivalent). Versions of one
# group/resource are always equivalent to each other; these add the cross-group aliases, including
# the historical extensions/v1beta1 and apps/v1beta1/v1beta2 endpoints clients may still name.
EQUIVALENT_RESOURCES: tuple[tuple[tuple[str, str, str], ...], ...] = (
    (
        ("apps", "v1", "deployments"),
        ("apps", "v1beta1", "deployments"),
        ("apps", "v1beta2", "deployments"),
        ("extensions", "v1beta1", "deployments"),
    ),
    (
        ("apps", "v1", "daemonsets"),
        ("apps", "v1beta2", "daemonsets"),
        ("extensions", "v1beta1", "daemonsets"),
    ),
    (
        ("apps", "v1", "replicasets"),
        ("apps", "v1beta2", "replicasets"),
        ("extensions", "v1beta1", "replicasets"),
    ),
    (
        ("apps", "v1", "statefulsets"),
        ("apps", "v1beta1", "statefulsets"),
        ("apps", "v1beta2", "statefulsets"),
    ),
    (
        ("networking.k8s.io", "v1", "networkpolicies"),
        ("extensions", "v1beta1", "networkpolicies"),
    ),
    (
        ("networking.k8s.io", "v1", "ingresses"),
        ("networking.k8s.io", "v1beta1", "ingresses"),
        ("extensions", "v1beta1", "ingresses"),
    ),
    (
        ("", "v1", "events"),
        ("events.k8s.io", "v1", "events"),
        ("events.k8s.io", "v1beta1", "events"),
    ),
    (
        ("autoscaling", "v1", "horizontalpodautoscalers"),
        ("autoscaling", "v2", "horizontalpodautoscalers"),
        ("autoscaling", "v2beta1", "horizontalpodautoscalers"),
        ("autoscaling", "v2beta2", "horizontalpodautoscalers"),
    ),
    (("batch", "v1", "cronjobs"), ("batch", "v1beta1", "cronjobs")),
)
