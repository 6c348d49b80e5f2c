"""Coverage of a suite: what each case evaluated, from the evaluation's own steps, per binding."""

from __future__ import annotations

import json
import pickle

import pytest
import yaml

from policyeditor.engine.manifests.dump import dump_documents
from policyeditor.engine.suites.coverage import merge
from policyeditor.engine.suites.runner import run
from tests.builders import vap, vap_binding
from tests.vectors import DATA, external_path

KAT = DATA / "suites" / "passing" / "kat"

POLICY = dump_documents(
    [
        vap(
            "replica-limit",
            failurePolicy="Fail",
            matchConditions=[
                {
                    "name": "not-opted-out",
                    "expression": "object.metadata.?labels['opt-out'].orValue('') != 'true'",
                },
                {"name": "tier-is-web", "expression": "object.metadata.labels['tier'] == 'web'"},
            ],
            variables=[
                {"name": "limit", "expression": "5"},
                {"name": "unused", "expression": "'never read'"},
            ],
            validations=[
                {
                    "expression": "object.spec.replicas <= variables.limit",
                    "messageExpression": "'replicas must be at most ' + string(variables.limit)",
                },
                {"expression": "object.spec.replicas >= 1", "message": "at least one replica"},
            ],
            auditAnnotations=[
                {"key": "replicas", "valueExpression": "string(object.spec.replicas)"}
            ],
        ),
        vap_binding(
            "replica-limit-default",
            "replica-limit",
            matchResources={
                "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "default"}}
            },
        ),
        vap_binding("replica-limit-never-used", "replica-limit", ("Warn",)),
    ]
)


def _deployment(replicas: int, namespace: str = "default", **labels: str) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": namespace, "labels": labels},
        "spec": {"replicas": replicas},
    }


CASES = [
    {
        "name": "six-replicas-are-denied",
        "binding": "replica-limit-default",
        "object": _deployment(6, tier="web"),
        "expect": {"result": "deny", "messages": ["replicas must be at most 5"]},
    },
    {
        "name": "three-replicas-are-allowed",
        "binding": "replica-limit-default",
        "object": _deployment(3, tier="web"),
        "expect": {"result": "allow"},
    },
    {
        # The first matchCondition is false: the second is still evaluated (matcher.Match runs
        # filter.ForInput over all of them), nothing after them is.
        "name": "an-opted-out-deployment-is-left-out",
        "binding": "replica-limit-default",
        "object": _deployment(9, tier="web", **{"opt-out": "true"}),
        "expect": {"result": "skip"},
    },
    {
        # The second matchCondition fails (no such key): failurePolicy Fail denies, no validation runs.
        "name": "no-tier-label-is-an-error",
        "binding": "replica-limit-default",
        "object": _deployment(2),
        "expect": {"result": "error"},
    },
    {
        "name": "another-namespace-is-not-bound",
        "binding": "replica-limit-default",
        "object": _deployment(6, namespace="other", tier="web"),
        "expect": {"allowed": True},
    },
    {
        "name": "a-configmap-is-not-matched",
        "binding": "replica-limit-default",
        "object": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}},
        "expect": {"result": "skip"},
    },
]


@pytest.fixture
def suite(tmp_path):
    (tmp_path / "policy.yaml").write_text(POLICY)
    document = {
        "apiVersion": "policyeditor.dev/v1",
        "kind": "PolicyTest",
        "policies": ["policy.yaml"],
        "cases": [{"policy": "replica-limit", **case} for case in CASES],
    }
    (tmp_path / "limit.policytest.yaml").write_text(yaml.safe_dump(document))
    return tmp_path


def _coverage(report):
    (policy,) = report.coverage.to_dict()["policies"]
    return policy


def test_each_expression_is_counted_with_its_outcomes_per_binding(suite):
    report = run([suite], coverage=True)
    assert report.ok, report.to_text()
    policy = _coverage(report)
    bindings = {b["binding"]: b for b in policy["bindings"]}
    bound = bindings["replica-limit-default"]
    # Five requests got past matchConstraints; the namespace selector left one out.
    assert (bound["evaluations"], bound["notMatched"]) == (4, 1)
    assert policy["notMatched"] == 1  # the ConfigMap: matchConstraints
    outcomes = {item["id"]: item["outcomes"] for item in bound["items"]}
    assert outcomes == {
        # Every matchCondition is evaluated, even after a false one.
        "matchConditions[0]": {"true": 3, "false": 1},
        "matchConditions[1]": {"true": 3, "error": 1},
        # Variables are lazy: `unused` is never evaluated.
        "variables[0]": {"evaluated": 2},
        "validations[0]": {"false": 1, "true": 1},
        # validator.Validate evaluates every messageExpression, failing validation or not.
        "validations[0].messageExpression": {"evaluated": 2},
        "validations[1]": {"true": 2},
        "auditAnnotations[0]": {"published": 2},
    }
    assert bindings["replica-limit-never-used"] == {
        "binding": "replica-limit-never-used",
        "evaluations": 0,
        "notMatched": 0,
        "noExpression": 0,
        "items": [],
    }


def test_what_no_case_evaluated_is_listed_and_the_percentage_counts_it(suite):
    policy = _coverage(run([suite], coverage=True))
    assert policy["notExercised"] == ["variables[1]"]
    assert (policy["evaluated"], policy["total"], policy["percent"]) == (7, 8, 87.5)
    labels = {item["id"]: item["label"] for item in policy["items"]}
    assert labels["variables[1]"] == "unused"
    assert labels["validations[0]"] == "object.spec.replicas <= variables.limit"


def test_the_text_report_shows_each_binding_and_what_was_never_evaluated(suite):
    text = run([suite], coverage=True).to_text()
    block = text.split("coverage:\n", 1)[1].splitlines()
    assert block[:13] == [
        "  ValidatingAdmissionPolicy 'replica-limit': 7/8 expressions evaluated (87.5%)",
        "    not matched (matchConstraints): 1",
        "    binding 'replica-limit-default': 4 evaluated, 1 not matched",
        "      matchConditions[0] not-opted-out: true 3, false 1",
        "      matchConditions[1] tier-is-web: true 3, error 1",
        "      variables[0] limit: evaluated 2",
        "      validations[0] object.spec.replicas <= variables.limit: false 1, true 1",
        "      validations[0].messageExpression 'replicas must be at most ' + string(variables.limit):"
        " evaluated 2",
        "      validations[1] object.spec.replicas >= 1: true 2",
        "      auditAnnotations[0] replicas: published 2",
        "    binding 'replica-limit-never-used': 0 evaluated, 0 not matched",
        "    not evaluated by any case:",
        "      variables[1] unused",
    ]


def test_without_coverage_no_trace_is_kept(suite):
    report = run([suite])
    assert report.coverage is None
    assert all(result.trace is None for result in report.results)
    assert "coverage" not in report.to_dict()


def test_mutations_report_applied_and_unchanged_and_matchconditions_that_left_a_case_out():
    report = run([KAT / "configmap-defaults"], coverage=True)
    (policy,) = report.coverage.to_dict()["policies"]
    (alone,) = policy["bindings"]
    outcomes = {item["id"]: item["outcomes"] for item in alone["items"]}
    assert outcomes["matchConditions[0]"] == {"true": 3, "false": 1}
    assert outcomes["mutations[0]"] == {"applied": 3}
    assert outcomes["mutations[1]"] == {"applied": 3}
    assert policy["notMatched"] == 1  # DELETE is outside the rules
    assert policy["percent"] == 100.0


def test_a_message_expression_that_fails_is_counted_as_an_error():
    # kaptest's own example adds an int variable to a string: the messageExpression always fails.
    path = external_path("kaptest", "internal", "tester", "testdata", "vap-with-params.test")
    policy = next(
        p
        for p in run([path], coverage=True).coverage.to_dict()["policies"]
        if p["policy"] == "deployment-replicas"
    )
    items = {item["id"]: item["outcomes"] for item in policy["items"]}
    assert items["validations[0].messageExpression"] == {"error": 2}


def test_traces_cross_worker_processes_and_merge_to_the_same_report(suite, tmp_path_factory):
    other = tmp_path_factory.mktemp("other")
    (other / "policy.yaml").write_text(POLICY)
    (other / "again.policytest.yaml").write_text((suite / "limit.policytest.yaml").read_text())
    alone = run([suite, other], coverage=True, jobs=1)
    pooled = run([suite, other], coverage=True, jobs=2)
    assert pooled.to_dict() == alone.to_dict()
    # The same policy in two suites is one entry: each expression counted twice.
    policy = _coverage(pooled)
    bindings = {b["binding"]: b for b in policy["bindings"]}
    assert bindings["replica-limit-default"]["evaluations"] == 8
    trace = alone.results[0].trace
    assert pickle.loads(pickle.dumps(trace)) == trace
    assert json.loads(json.dumps(alone.to_dict()))["coverage"] == alone.to_dict()["coverage"]


def test_the_external_kaptest_tree_and_our_suites_run_with_coverage():
    paths = [DATA / "suites" / "passing", external_path("kaptest")]
    report = run(paths, coverage=True)
    assert report.ok
    policies = report.coverage.to_dict()["policies"]
    assert len(policies) >= 20
    assert all(0.0 <= p["percent"] <= 100.0 for p in policies)
    assert merge((r.trace, r.case.suite) for r in report.results).to_dict() == {
        "policies": policies
    }


def test_a_binding_stopped_before_any_expression_is_counted_apart():
    # kat's no-params-found case: the binding matched, paramRef found nothing (Deny).
    report = run([KAT / "replica-limit"], coverage=True)
    (policy,) = report.coverage.to_dict()["policies"]
    (binding,) = policy["bindings"]
    assert (binding["evaluations"], binding["notMatched"], binding["noExpression"]) == (4, 0, 1)
    assert "1 stopped before any expression" in report.to_text()
