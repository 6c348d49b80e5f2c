"""Every jsonpatch.jsonl and applyconfig.jsonl conformance vector, run through MAP evaluation."""

from __future__ import annotations

import pytest

from policyeditor.engine.admission.evaluation import AdmissionRequest, evaluate
from tests.vectors import load_vectors, vector_id

JSONPATCH = load_vectors("jsonpatch.jsonl")
APPLYCONFIG = load_vectors("applyconfig.jsonl")


def policy_for(record: dict) -> dict:
    if record["kind"] == "jsonpatch":
        mutation = {"patchType": "JSONPatch", "jsonPatch": {"expression": record["expr"]}}
    else:
        mutation = {
            "patchType": "ApplyConfiguration",
            "applyConfiguration": {"expression": record["expr"]},
        }
    obj = record["object"]
    group, _, version = obj["apiVersion"].rpartition("/")
    plural = AdmissionRequest.build(object=obj).resource["resource"]
    spec = {
        "matchConstraints": {
            "resourceRules": [
                {
                    "apiGroups": [group],
                    "apiVersions": [version],
                    "operations": ["CREATE", "UPDATE"],
                    "resources": [plural],
                }
            ]
        },
        "failurePolicy": "Fail",
        "reinvocationPolicy": "Never",
        "mutations": [mutation],
    }
    if "params" in record.get("vars", {}):
        spec["paramKind"] = {"apiVersion": "v1", "kind": "ConfigMap"}
    return {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "MutatingAdmissionPolicy",
        "metadata": {"name": "vector"},
        "spec": spec,
    }


def run(record: dict):
    request = AdmissionRequest.build(object=record["object"], old_object=record.get("oldObject"))
    params = record.get("vars", {}).get("params")
    kwargs = {"params": params} if params is not None else {}
    # The vectors come from the patchers' Go unit tests (TestJSONPatch, TestApplyConfiguration),
    # which patch without the scheme defaulter the API server runs: no defaulting here either.
    return evaluate([policy_for(record)], request, defaulting=False, **kwargs)


def check(record: dict) -> None:
    result = run(record)
    if "expect_error" in record:
        assert not result.allowed, result.to_dict()
        assert record["expect_error"] in result.message, result.message
        # Strict decoding failures are internal status errors (500); the others policy errors.
        assert result.status_code == (500 if "strict decoding" in record["expect_error"] else 403)
    else:
        assert result.allowed, result.to_dict()
        assert result.object == record["expect"]


@pytest.mark.parametrize(
    "record", JSONPATCH, ids=[vector_id(r, i) for i, r in enumerate(JSONPATCH)]
)
def test_jsonpatch_vector(record):
    check(record)


@pytest.mark.parametrize(
    "record", APPLYCONFIG, ids=[vector_id(r, i) for i, r in enumerate(APPLYCONFIG)]
)
def test_applyconfig_vector(record):
    check(record)


def test_a_failed_test_operation_leaves_the_object_unchanged_without_error():
    record = {
        "kind": "jsonpatch",
        "object": {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "d"},
            "spec": {},
        },
        "expr": '[JSONPatch{op: "test", path: "/metadata/name", value: "other"},'
        ' JSONPatch{op: "add", path: "/metadata/labels", value: {"a": "b"}}]',
    }
    result = run(record)
    assert result.allowed and result.result == "allow"
    assert result.object == record["object"]
    mutation = result.policies[0].mutations[0]
    assert mutation.status == "unchanged"
