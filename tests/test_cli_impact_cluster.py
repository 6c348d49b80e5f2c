"""`policyeditor impact` answers as the cluster, and as `policyeditor eval` on the same object."""

from __future__ import annotations

import json

import yaml

from tests.builders import bound, document, namespace, replica_limit, rules
from tests.engine.impact.helpers import deployment, kubectl_json
from tests.test_cli_impact import run

UNBOUND = "ValidatingAdmissionPolicy 'replica-limit.example.com' has no binding in"


def write(tmp_path, name: str, documents: list[dict]) -> str:
    path = tmp_path / name
    path.write_text(yaml.safe_dump_all(documents))
    return str(path)


def dump(tmp_path, objects: list[dict]) -> str:
    path = tmp_path / "dump.json"
    path.write_bytes(kubectl_json(objects))
    return str(path)


def test_an_unbound_policy_denies_nothing_and_is_named_once_in_the_report(tmp_path):
    lone = write(tmp_path, "lone.yaml", [replica_limit(3)])
    objects = dump(tmp_path, [deployment("web", 4, "prod")])
    code, out, _ = run("impact", lone, "--dump", objects, "-j", "1")
    assert code == 0
    assert out.count(UNBOUND) == 1
    assert f"warning: {UNBOUND} the policy files: a cluster ignores a policy" in out
    assert "0 newly denied; 0 objects the policies affect:" in out
    code, out, _ = run("impact", lone, "--dump", objects, "-j", "1", "-o", "json")
    report = json.loads(out)
    assert report["unboundPolicies"] == {
        "revision": [{"kind": "ValidatingAdmissionPolicy", "name": "replica-limit.example.com"}],
        "baseline": [],
    }
    assert report["counts"]["CREATE"]["skip"] == 1 and report["newDenials"] == 0


def test_an_unbound_policy_in_the_baseline_does_not_hide_new_denials(tmp_path):
    new = write(tmp_path, "new.yaml", bound(replica_limit(3)))
    old = write(tmp_path, "old.yaml", [replica_limit(3)])
    objects = dump(tmp_path, [deployment("web", 4)])
    code, out, _ = run("impact", new, "--baseline", old, "--dump", objects, "-j", "1")
    assert code == 1
    assert f"warning: {UNBOUND} the baseline" in out
    assert "1 newly denied; 1 objects changed against the baseline:" in out
    code, out, _ = run("impact", new, "--baseline", old, "--dump", objects, "-j", "1", "-o", "json")
    unbound = json.loads(out)["unboundPolicies"]
    assert unbound["revision"] == [] and len(unbound["baseline"]) == 1


def test_impact_and_eval_agree_on_an_authorizer_check(tmp_path):
    policy = replica_limit(5, message="not authorized")
    policy["spec"]["validations"][0]["expression"] = (
        "authorizer.group('apps').resource('deployments').check('create').allowed()"
    )
    policies = write(tmp_path, "policy.yaml", bound(policy))
    obj = deployment("web", 1)
    (tmp_path / "object.yaml").write_text(yaml.safe_dump(obj))
    code, out, _ = run("eval", policies, "--object", str(tmp_path / "object.yaml"), "-o", "json")
    evaluated = json.loads(out)
    assert (code, evaluated["result"], evaluated["allowed"]) == (1, "deny", False)
    code, out, _ = run("impact", policies, "--dump", dump(tmp_path, [obj]), "-j", "1", "-o", "json")
    row = json.loads(out)["listed"][0]
    assert code == 1
    assert (row["CREATE"]["result"], row["CREATE"]["allowed"]) == ("deny", False)
    assert row["CREATE"]["message"] == evaluated["message"]
    assert "no such attribute" not in row["CREATE"]["message"]


def test_a_namespace_document_among_the_policies_leaves_the_objects_namespaces_standing(tmp_path):
    documents = [*bound(replica_limit(3)), namespace("policy-params", limit="3")]
    policies = write(tmp_path, "policies.yaml", documents)
    objects = dump(tmp_path, [deployment("p", 4, "prod"), deployment("d", 1, "dev")])
    code, out, _ = run("impact", policies, "--dump", objects, "-j", "1", "-o", "json")
    report = json.loads(out)
    assert code == 1
    assert report["counts"]["CREATE"]["deny"] == 1 and report["counts"]["CREATE"]["allow"] == 1
    assert report["counts"]["CREATE"]["error"] == 0
    assert all("not found" not in row["CREATE"]["message"] for row in report["listed"])


def test_new_mutations_are_changes_against_the_baseline(tmp_path):
    mutation = {
        "patchType": "ApplyConfiguration",
        "applyConfiguration": {
            "expression": 'Object{metadata: Object.metadata{labels: {"checked": "yes"}}}'
        },
    }
    spec = {"matchConstraints": rules(), "mutations": [mutation], "reinvocationPolicy": "Never"}
    labelling = document("MutatingAdmissionPolicy", "label", spec)
    new = write(tmp_path, "new.yaml", [*bound(replica_limit(5)), *bound(labelling)])
    old = write(tmp_path, "old.yaml", bound(replica_limit(5)))
    objects = dump(tmp_path, [deployment("a", 1), deployment("b", 2)])
    code, out, _ = run("impact", new, "--baseline", old, "--dump", objects, "-j", "1")
    assert code == 0
    assert "0 newly denied; 2 objects changed against the baseline:" in out
    assert (
        "Deployment default/a: CREATE allow -> allow (mutated), UPDATE allow -> allow (mutated)"
        in out
    )
    # The other way round: the revision no longer mutates them.
    code, out, _ = run("impact", old, "--baseline", new, "--dump", objects, "-j", "1")
    assert "2 objects changed against the baseline:" in out
    assert "CREATE allow -> allow (no longer mutated)" in out
