"""Impact answers as the cluster would: bound policies only, the authorizer bound, namespaces that
exist, and mutations and audit annotations compared with the baseline."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from policyeditor.engine import admission
from policyeditor.engine.admission.inputs import EvaluationInputs, evaluate_inputs
from policyeditor.engine.impact import (
    Job,
    Summary,
    changed,
    denied_newly,
    evaluate_object,
    evaluate_stream,
    namespace_for,
    unbound_policies,
    unbound_warning,
)
from policyeditor.engine.manifests.loading import load_documents
from tests.builders import bound, document, namespace, replica_limit, rules, vap_binding
from tests.engine.impact.helpers import deployment
from tests.vectors import load_vectors

VERSION = "1.37"


def rows(job: Job, objects: list[dict]) -> list[dict]:
    """The rows of `objects`, evaluated in this process."""
    return list(evaluate_stream(job, objects, pool=None))


def outcomes(job: Job, objects: list[dict]) -> dict[str, str]:
    """name -> the CREATE result of each object."""
    return {row["name"]: row["CREATE"]["result"] for row in rows(job, objects)}


# ---------------------------------------------------------------- unbound policies


def test_a_policy_no_binding_references_acts_on_no_object_as_in_a_cluster():
    row = rows(Job([replica_limit(3)], VERSION), [deployment("web", 4)])[0]
    assert row["CREATE"]["result"] == row["UPDATE"]["result"] == "skip"
    assert not denied_newly(row)
    # eval and Try it keep their contract: a lone policy is evaluated as if bound.
    request = admission.AdmissionRequest.build(object=deployment("web", 4), version=VERSION)
    assert admission.evaluate([replica_limit(3)], request, version=VERSION).result == "deny"


def test_the_same_policy_with_a_binding_denies_the_object():
    job = Job(bound(replica_limit(3)), VERSION)
    assert outcomes(job, [deployment("web", 4)]) == {"web": "deny"}


def test_an_unbound_policy_in_the_baseline_does_not_hide_a_new_denial():
    job = Job(bound(replica_limit(3)), VERSION, baseline=[replica_limit(3)])
    row = rows(job, [deployment("web", 4)])[0]
    assert row["CREATE_before"]["result"] == "skip"
    assert denied_newly(row) and changed(row)


def test_only_a_binding_of_the_policys_own_kind_and_a_served_version_binds_it():
    alpha = "admissionregistration.k8s.io/v1alpha1"
    mutating = document(
        "MutatingAdmissionPolicy", "m", {"matchConstraints": rules()}, api_version=alpha
    )
    mutating_binding = document("MutatingAdmissionPolicyBinding", "m-binding", {"policyName": "m"})
    documents = [
        *bound(replica_limit(3, name="bound")),
        replica_limit(3, name="lone"),
        vap_binding("wrong-kind", "m"),  # a VAP binding does not bind a MAP of that name
        mutating,
        mutating_binding,  # admissionregistration v1: served for MAP bindings from 1.36
    ]
    assert unbound_policies(documents, "1.37") == [
        {"kind": "ValidatingAdmissionPolicy", "name": "lone"},
    ]
    assert unbound_policies(documents, "1.34") == [
        {"kind": "MutatingAdmissionPolicy", "name": "m"},
        {"kind": "ValidatingAdmissionPolicy", "name": "lone"},
    ]


def test_the_warning_names_each_unbound_policy_and_how_to_bind_it():
    one = unbound_warning([{"kind": "ValidatingAdmissionPolicy", "name": "limit"}], "r2")
    assert one == (
        "ValidatingAdmissionPolicy 'limit' has no binding in r2: a cluster ignores a policy no "
        "binding references, and so did this analysis (bind it with a "
        "ValidatingAdmissionPolicyBinding whose policyName is 'limit')"
    )
    two = [
        {"kind": "ValidatingAdmissionPolicy", "name": "a"},
        {"kind": "MutatingAdmissionPolicy", "name": "b"},
    ]
    assert unbound_warning(two, "r2").startswith(
        "ValidatingAdmissionPolicy 'a', MutatingAdmissionPolicy 'b' have no binding in r2"
    )
    assert unbound_warning([], "r2") == ""


# ---------------------------------------------------------------- the authorizer


def authorizer_vector() -> dict:
    """Kubernetes' vector: a check the authorizer has no opinion on is not allowed."""
    return next(
        record
        for record in load_vectors("cel.jsonl")
        if record.get("source", {}).get("test") == "TestCondition/test authorizer error"
        and record["expr"].endswith(".allowed()")
    )


def authorizing_policy(expression: str) -> list[dict]:
    """A bound policy on deployments that admits what `expression` allows."""
    policy = replica_limit(5, message="not authorized")
    policy["spec"]["validations"][0]["expression"] = expression
    return bound(policy)


def test_the_authorizer_is_bound_and_answers_no_opinion_as_eval_does():
    vector = authorizer_vector()
    assert vector["vars"]["authorizer"]["decision"] == "NoOpinion"
    assert vector["expect"] is False
    documents = authorizing_policy(vector["expr"])
    obj = deployment("web", 1)
    row = rows(Job(documents, VERSION), [obj])[0]
    # The vector's false: the validation fails, it does not error on an unbound authorizer.
    assert row["CREATE"]["result"] == "deny", row["CREATE"]["message"]
    assert "not authorized" in row["CREATE"]["message"]
    # What `policyeditor eval` answers on the same object (its authorizer: no mocked decision).
    evaluated = evaluate_inputs(EvaluationInputs(documents, VERSION, object=copy.deepcopy(obj)))
    assert (evaluated.result, evaluated.allowed) == ("deny", row["CREATE"]["allowed"])
    assert evaluated.message == row["CREATE"]["message"]


def test_the_request_resource_check_is_bound_too():
    documents = authorizing_policy("!authorizer.requestResource.check('create').allowed()")
    assert outcomes(Job(documents, VERSION), [deployment("web", 1)]) == {"web": "allow"}


# ---------------------------------------------------------------- namespaces


def selective(**labels: str) -> dict:
    """replica_limit(3) on the namespaces with these labels."""
    policy = replica_limit(3)
    policy["spec"]["matchConstraints"]["namespaceSelector"] = {"matchLabels": labels}
    return policy


def test_a_namespace_document_in_the_draft_does_not_turn_missing_namespaces_into_rejections():
    params = namespace("policy-params", limit="3")
    objects = [deployment("p", 4, "prod"), deployment("d", 1, "dev")]
    with_document = rows(Job([*bound(replica_limit(3)), params], VERSION), objects)
    without = rows(Job(bound(replica_limit(3)), VERSION), objects)
    assert {r["name"]: r["CREATE"]["result"] for r in with_document} == {"p": "deny", "d": "allow"}
    for row, alone in zip(with_document, without, strict=True):
        assert row["CREATE"] == alone["CREATE"] and row["UPDATE"] == alone["UPDATE"]
        assert "not found" not in row["CREATE"]["message"]


def test_a_missing_namespace_stands_in_with_its_name_label_whatever_the_documents():
    policy = replica_limit(3)
    policy["spec"]["matchConstraints"]["namespaceSelector"] = {
        "matchLabels": {"kubernetes.io/metadata.name": "prod"}
    }
    job = Job([*bound(policy), namespace("elsewhere")], VERSION, defaulting=False)
    objects = [deployment("p", 4, "prod"), deployment("d", 4, "dev")]
    assert outcomes(job, objects) == {"p": "deny", "d": "skip"}


def test_the_drafts_namespace_is_applied_over_the_dumps_keeping_its_other_labels():
    documents = [*bound(selective(env="prod", team="a")), namespace("prod", env="prod")]
    job = Job(documents, VERSION, namespaces={"prod": namespace("prod", team="a", env="test")})
    # The dump's team label stays, the draft's env replaces the dump's: the selector matches.
    assert outcomes(job, [deployment("p", 4, "prod")]) == {"p": "deny"}
    # The baseline, without that document, sees the namespace as the dump holds it.
    job.baseline = bound(selective(env="prod", team="a"))
    row = rows(job, [deployment("p", 4, "prod")])[0]
    assert row["CREATE_before"]["result"] == "skip" and denied_newly(row)


def test_namespace_for_applies_labels_and_annotations_and_leaves_its_inputs_alone():
    live = namespace("prod", team="a", env="test")
    live["metadata"]["annotations"] = {"owner": "ops"}
    drafted = namespace("prod", env="prod")
    drafted["metadata"]["annotations"] = {"note": "x"}
    before = copy.deepcopy((live, drafted))
    found = namespace_for([drafted, namespace("other", env="x")], "prod", live)
    assert found is not None
    assert found["metadata"]["labels"] == {"team": "a", "env": "prod"}
    assert found["metadata"]["annotations"] == {"owner": "ops", "note": "x"}
    assert (live, drafted) == before
    assert namespace_for([drafted], "", live) is None
    assert namespace_for([], "dev", None) == {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": "dev", "labels": {"kubernetes.io/metadata.name": "dev"}},
    }


def test_an_object_evaluated_alone_finds_its_namespace_as_a_row_does():
    documents = [*bound(replica_limit(3)), namespace("policy-params")]
    outcome = evaluate_object(
        documents, deployment("p", 4, "prod"), "CREATE", version=VERSION, namespaces={}
    )
    assert outcome["result"] == "deny" and outcome["allowed"] is False


# ---------------------------------------------------------------- the scope of custom resources

CERTIFICATES_CRD = Path("tests/data/external/crds/cert-manager/cert-manager.io_certificates.yaml")


def cert_manager_policy(resource: str) -> dict:
    """A policy denying every `resource` of cert-manager.io in namespaces labelled env=prod."""
    policy = replica_limit(3)
    policy["spec"]["matchConstraints"] = rules(resource, group="cert-manager.io")
    policy["spec"]["matchConstraints"]["namespaceSelector"] = {"matchLabels": {"env": "prod"}}
    policy["spec"]["validations"] = [{"expression": "false", "message": "no"}]
    return policy


def cert_manager_object(kind: str, name: str, namespace: str | None = None) -> dict:
    metadata = {"name": name, **({"namespace": namespace} if namespace else {})}
    return {"apiVersion": "cert-manager.io/v1", "kind": kind, "metadata": metadata, "spec": {}}


def test_a_custom_resource_without_its_crd_or_a_namespace_is_cluster_scoped_as_kubectl_prints_it():
    # kubectl prints metadata.namespace for every namespaced object: without one, the object is
    # cluster-scoped, and a namespaceSelector does not leave it out (it is not in "default").
    job = Job(bound(cert_manager_policy("clusterissuers")), VERSION)
    objects = [
        cert_manager_object("ClusterIssuer", "cluster-wide"),
        cert_manager_object("ClusterIssuer", "in-dev", "dev"),
    ]
    found = {row["name"]: row for row in rows(job, objects)}
    assert found["cluster-wide"]["CREATE"]["result"] == "deny"
    assert "no" in found["cluster-wide"]["CREATE"]["message"]
    assert found["in-dev"]["CREATE"]["result"] == "skip"


def test_with_its_crd_in_force_a_namespaced_kind_without_a_namespace_is_in_default():
    crds = load_documents(CERTIFICATES_CRD.read_bytes())
    certificate = cert_manager_object("Certificate", "c")
    certificate["spec"] = {"issuerRef": {"name": "issuer"}, "secretName": "c-tls"}  # required
    job = Job(bound(cert_manager_policy("certificates")), VERSION, crds=crds)
    # The CRD says Namespaced: the request is in "default" (as kubectl sends it), which is not
    # labelled env=prod. Without the CRD the same object reads as cluster-scoped.
    assert outcomes(job, [certificate]) == {"c": "skip"}
    job.namespaces = {"default": namespace("default", env="prod")}
    assert outcomes(job, [certificate]) == {"c": "deny"}
    assert outcomes(Job(job.documents, VERSION), [certificate]) == {"c": "deny"}


# ---------------------------------------------------------------- mutations and audit annotations


def labelling(name: str = "label") -> list[dict]:
    """A bound MAP that labels every deployment."""
    mutation = {
        "patchType": "ApplyConfiguration",
        "applyConfiguration": {
            "expression": 'Object{metadata: Object.metadata{labels: {"checked": "yes"}}}'
        },
    }
    spec = {"matchConstraints": rules(), "mutations": [mutation], "reinvocationPolicy": "Never"}
    return bound(document("MutatingAdmissionPolicy", name, spec))


def auditing(values: int) -> list[dict]:
    """replica_limit(5) writing `values` audit annotations."""
    policy = replica_limit(5)
    policy["spec"]["auditAnnotations"] = [
        {"key": f"k{i}", "valueExpression": "'v'"} for i in range(values)
    ]
    return bound(policy)


def test_a_revision_that_newly_mutates_objects_changes_them_against_the_baseline():
    objects = [deployment("a", 1), deployment("b", 2)]
    job = Job([*bound(replica_limit(5)), *labelling()], VERSION, baseline=bound(replica_limit(5)))
    found = rows(job, objects)
    assert all(r["CREATE"]["mutated"] and not r["CREATE_before"]["mutated"] for r in found)
    assert all(r["CREATE"]["result"] == r["CREATE_before"]["result"] for r in found)
    summary = Summary()
    for row in found:
        summary.add(row)
    assert summary.changed == 2 and summary.denied_newly == 0
    # The baseline that already mutated them: nothing changed.
    job.baseline = job.documents
    assert not any(changed(r) for r in rows(job, objects))


def test_new_audit_annotations_change_an_object_against_the_baseline():
    job = Job(auditing(2), VERSION, baseline=auditing(1))
    row = rows(job, [deployment("a", 1)])[0]
    assert (row["CREATE"]["audit"], row["CREATE_before"]["audit"]) == (2, 1)
    assert changed(row) and not denied_newly(row)


@pytest.mark.parametrize(
    ("before", "after", "expected"),
    [
        ({"mutated": False, "audit": 0}, {"mutated": False, "audit": 0}, False),
        ({"mutated": False, "audit": 0}, {"mutated": True, "audit": 0}, True),
        ({"mutated": True, "audit": 0}, {"mutated": False, "audit": 0}, True),
        ({"mutated": False, "audit": 1}, {"mutated": False, "audit": 2}, True),
        ({"mutated": False}, {"mutated": False, "audit": 0}, False),
    ],
)
def test_changed_compares_mutation_and_audit_annotation_count(before, after, expected):
    row = {op: {"result": "allow", "allowed": True, **after} for op in ("CREATE", "UPDATE")} | {
        f"{op}_before": {"result": "allow", "allowed": True, **before}
        for op in ("CREATE", "UPDATE")
    }
    assert changed(row) is expected
