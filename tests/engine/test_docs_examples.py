"""The policies of the Kubernetes documentation give the answers the documentation shows."""

from __future__ import annotations

from policyeditor.engine.admission.evaluation import AdmissionRequest, evaluate
from policyeditor.engine.manifests.loading import load_documents

# kubernetes.io/docs/reference/access-authn-authz/validating-admission-policy/ (parameter resources)
REPLICA_LIMIT = """
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: "replicalimit-policy.example.com"
spec:
  failurePolicy: Fail
  paramKind:
    apiVersion: rules.example.com/v1
    kind: ReplicaLimit
  matchConstraints:
    resourceRules:
    - apiGroups:   ["apps"]
      apiVersions: ["v1"]
      operations:  ["CREATE", "UPDATE"]
      resources:   ["deployments"]
  validations:
    - expression: "object.spec.replicas <= params.maxReplicas"
      reason: Invalid
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: "replicalimit-binding-test.example.com"
spec:
  policyName: "replicalimit-policy.example.com"
  validationActions: [Deny]
  paramRef:
    name: "replica-limit-test.example.com"
    namespace: "default"
    parameterNotFoundAction: Deny
  matchResources:
    namespaceSelector:
      matchLabels:
        environment: test
---
apiVersion: rules.example.com/v1
kind: ReplicaLimit
metadata:
  name: "replica-limit-test.example.com"
  namespace: "default"
maxReplicas: 3
---
apiVersion: v1
kind: Namespace
metadata:
  name: test-ns
  labels:
    environment: test
---
apiVersion: v1
kind: Namespace
metadata:
  name: prod-ns
  labels:
    environment: production
"""


def deployment(namespace: str, replicas: int) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "nginx", "namespace": namespace},
        "spec": {"replicas": replicas},
    }


def test_the_replica_limit_example_denies_five_replicas_in_a_test_namespace():
    docs = load_documents(REPLICA_LIMIT)
    result = evaluate(docs, AdmissionRequest.build(object=deployment("test-ns", 5)))
    assert not result.allowed
    assert result.message == (
        'deployments.apps "nginx" is forbidden: ValidatingAdmissionPolicy '
        "'replicalimit-policy.example.com' with binding 'replicalimit-binding-test.example.com' "
        "denied request: failed expression: object.spec.replicas <= params.maxReplicas"
    )


def test_the_replica_limit_example_admits_within_the_limit_and_elsewhere():
    docs = load_documents(REPLICA_LIMIT)
    assert evaluate(docs, AdmissionRequest.build(object=deployment("test-ns", 3))).allowed
    elsewhere = evaluate(docs, AdmissionRequest.build(object=deployment("prod-ns", 5)))
    assert elsewhere.allowed and elsewhere.result == "skip"


# kubernetes.io/docs/reference/access-authn-authz/mutating-admission-policy/ (sidecar example)
SIDECAR = """
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicy
metadata:
  name: "sidecar-policy.example.com"
spec:
  paramKind:
    kind: Sidecar
    apiVersion: mutations.example.com/v1
  matchConstraints:
    resourceRules:
    - apiGroups:   [""]
      apiVersions: ["v1"]
      operations:  ["CREATE"]
      resources:   ["pods"]
  matchConditions:
    - name: does-not-already-have-sidecar
      expression: "!object.spec.initContainers.exists(ic, ic.name == params.name)"
  failurePolicy: Fail
  reinvocationPolicy: IfNeeded
  mutations:
    - patchType: "ApplyConfiguration"
      applyConfiguration:
        expression: >
          Object{
            spec: Object.spec{
              initContainers: [
                Object.spec.initContainers{
                  name: params.name,
                  image: params.image,
                  args: params.args,
                  restartPolicy: params.restartPolicy
                }
              ]
            }
          }
---
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: "sidecar-binding-test.example.com"
spec:
  policyName: "sidecar-policy.example.com"
  paramRef:
    name: "meshproxy-sidecar.example.com"
    namespace: "default"
    parameterNotFoundAction: Deny
---
apiVersion: mutations.example.com/v1
kind: Sidecar
metadata:
  name: meshproxy-sidecar.example.com
  namespace: default
name: mesh-proxy
image: mesh/proxy:v1.0.0
args: ["proxy", "--config", "/etc/config"]
restartPolicy: Always
"""


def sidecar_pod() -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "myapp", "namespace": "default"},
        "spec": {"initContainers": [], "containers": [{"name": "app", "image": "app:1"}]},
    }


def test_the_sidecar_example_is_refused_for_setting_the_atomic_args_list():
    # smd.go's findAtomics reports container args (listType=atomic) even inside a new list item,
    # so the documented expression fails on the API server; JSONPatch is the way to set args.
    docs = load_documents(SIDECAR)
    result = evaluate(docs, AdmissionRequest.build(object=sidecar_pod()), version="1.34")
    assert (result.allowed, result.status_code) == (False, 403)
    assert result.message == (
        "policy 'sidecar-policy.example.com' with binding 'sidecar-binding-test.example.com' "
        "denied request: error applying patch: invalid ApplyConfiguration: may not mutate "
        "atomic arrays, maps or structs: .spec.initContainers[0].args"
    )


def test_the_sidecar_example_without_args_adds_the_init_container_once():
    docs = load_documents(SIDECAR.replace("                  args: params.args,\n", ""))
    result = evaluate(docs, AdmissionRequest.build(object=sidecar_pod()), version="1.34")
    assert result.allowed, result.message
    # The added container is defaulted after the mutation, as the dispatcher does.
    assert result.object["spec"]["initContainers"] == [
        {
            "name": "mesh-proxy",
            "image": "mesh/proxy:v1.0.0",
            "restartPolicy": "Always",
            "imagePullPolicy": "IfNotPresent",
            "terminationMessagePath": "/dev/termination-log",
            "terminationMessagePolicy": "File",
        }
    ]
    # IfNeeded: the reinvocation pass finds the sidecar present and its match condition false.
    assert [(o.invocation, o.result) for o in result.policies] == [(1, "allow"), (2, "skip")]
