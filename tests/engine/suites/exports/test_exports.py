"""Exports of saved cases: each layout, written out and run by `policyeditor test`, gives the same
outcome per case as the PolicyTest suite it came from, and says what it could not carry over."""

from __future__ import annotations

from pathlib import Path

import pytest

from policyeditor.engine.manifests.dump import dump_documents
from policyeditor.engine.manifests.loading import load_documents
from policyeditor.engine.suites import run
from policyeditor.engine.suites.exports import EXPORT_LAYOUTS, export_suite
from tests.builders import document, rules, vap, vap_binding

CONFIGMAPS = rules("configmaps", group="", operations=("CREATE",))
DOCUMENTS = [
    vap(
        "replicas",
        failurePolicy="Fail",
        matchConditions=[
            {
                "name": "not-exempt",
                "expression": "!has(object.metadata.labels) || !('exempt' in object.metadata.labels)",
            }
        ],
        validations=[
            {"expression": "object.spec.replicas <= 2", "message": "at most 2 replicas"},
            {"expression": "request.userInfo.username != 'mallory'", "message": "not mallory"},
        ],
    ),
    vap_binding(
        "replicas-team-a",
        "replicas",
        matchResources={"namespaceSelector": {"matchLabels": {"team": "a"}}},
    ),
    document(
        "MutatingAdmissionPolicy",
        "label",
        {
            "reinvocationPolicy": "Never",
            "matchConstraints": CONFIGMAPS,
            "mutations": [
                {
                    "patchType": "ApplyConfiguration",
                    "applyConfiguration": {
                        "expression": "Object{metadata: Object.metadata{labels: {'team': 'a'}}}"
                    },
                }
            ],
        },
        api_version="admissionregistration.k8s.io/v1beta1",
    ),
]


def _deployment(name: str, replicas: int, labels: dict | None = None) -> dict:
    metadata: dict = {"name": name, "namespace": "apps"}
    if labels:
        metadata["labels"] = labels
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": metadata,
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "c", "image": "nginx"}]},
            },
        },
    }


TEAM_A = {
    "apiVersion": "v1",
    "kind": "Namespace",
    "metadata": {"name": "apps", "labels": {"team": "a"}},
}
CONFIGMAP = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "cm", "namespace": "apps"},
}
CASES = [
    {
        "name": "small",
        "policy": "replicas",
        "object": _deployment("small", 1),
        "expect": {"result": "allow"},
    },
    {
        "name": "big",
        "policy": "replicas",
        "object": _deployment("big", 5),
        "expect": {"result": "deny", "messages": ["at most 2"]},
    },
    {
        "name": "big through team a",
        "policy": "replicas",
        "binding": "replicas-team-a",
        "object": _deployment("big-a", 5),
        "namespaceObject": TEAM_A,
        "expect": {"result": "deny"},
    },
    {
        "name": "mallory",
        "policy": "replicas",
        "object": _deployment("m", 1),
        "userInfo": {"username": "mallory", "groups": ["dev"]},
        "expect": {"result": "deny"},
    },
    {
        "name": "exempt",
        "policy": "replicas",
        "object": _deployment("e", 9, {"exempt": "yes"}),
        "expect": {"result": "skip"},
    },
    {
        "name": "labelled",
        "policy": "label",
        "object": CONFIGMAP,
        "expect": {
            "object": {**CONFIGMAP, "metadata": {**CONFIGMAP["metadata"], "labels": {"team": "a"}}}
        },
    },
    {
        "name": "update",
        "policy": "replicas",
        "object": _deployment("u", 5),
        "oldObject": _deployment("u", 1),
        "expect": {"result": "deny"},
    },
]


def _write(root: Path, files: dict[str, str]) -> None:
    for path, text in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)


def _policytest_outcomes(tmp_path: Path) -> dict[str, str | None]:
    suite = {
        "apiVersion": "policyeditor.dev/v1",
        "kind": "PolicyTest",
        "policies": ["policy.yaml"],
        "kubernetesVersion": "1.36",
        "cases": CASES,
    }
    _write(
        tmp_path / "pt",
        {"policy.yaml": dump_documents(DOCUMENTS), "s.policytest.yaml": dump_documents([suite])},
    )
    report = run([tmp_path / "pt"])
    assert report.ok, report.to_text()
    return {r.case.name: r.outcome["result"] for r in report.results}


def _exported(tmp_path: Path, layout: str):
    export = export_suite(layout, DOCUMENTS, CASES, version="1.36", name="replica limits")
    _write(tmp_path / layout, export.files)
    return export, run([tmp_path / layout / "replica-limits"])


EXPECTED_LEFT_OUT = {
    "kat": ["exempt: kat has no skip expectation (allow, deny, warn, audit)"],
    "kaptest": [
        "big through team a: another case has a different Namespace 'apps': kaptest names "
        "objects by kind and name",
        "update: another case has a different Deployment 'u': kaptest names objects by kind and name",
    ],
    "kyverno": ["update: Kyverno CLI tests send only CREATE requests (no oldObject)"],
}


@pytest.mark.parametrize("layout", EXPORT_LAYOUTS)
def test_each_export_runs_with_the_same_outcome_per_case(tmp_path, layout):
    before = _policytest_outcomes(tmp_path)
    export, report = _exported(tmp_path, layout)
    assert report.errors == []
    assert export.left_out == EXPECTED_LEFT_OUT[layout]
    assert report.ok, report.to_text()
    left_out = {item.split(":")[0] for item in export.left_out}
    assert len(report.results) == len(CASES) - len(left_out)
    # every case's object has a name of its own: it tells which case an exported one came from
    by_object = {case["object"]["metadata"]["name"]: case["name"] for case in CASES}
    for result in report.results:
        original = by_object[result.case.object["metadata"]["name"]]
        assert result.outcome["result"] == before[original], (layout, original)


def test_the_kyverno_export_writes_the_layout_the_kyverno_cli_reads():
    export = export_suite("kyverno", DOCUMENTS, CASES, version="1.36", name="limits")
    test = load_documents(
        export.files["limits/03-big-through-team-a/kyverno-test.yaml"], source="t"
    )[0]
    assert test == {
        "apiVersion": "cli.kyverno.io/v1alpha1",
        "kind": "Test",
        "metadata": {"name": "big-through-team-a"},
        "policies": ["policy.yaml"],
        "resources": ["resource.yaml"],
        "variables": "values.yaml",
        "results": [
            {
                "policy": "replicas",
                "isValidatingAdmissionPolicy": True,
                "kind": "Deployment",
                "resources": ["apps/big-a"],
                "result": "fail",
            }
        ],
    }
    values = load_documents(export.files["limits/03-big-through-team-a/values.yaml"], source="v")[0]
    assert values["namespaceSelector"] == [{"name": "apps", "labels": {"team": "a"}}]
    assert "big: messages (Kyverno CLI tests cannot say so)" in export.weakened


def test_the_kat_export_names_files_as_kat_expects():
    export = export_suite("kat", DOCUMENTS, CASES, version="1.36", name="limits")
    names = sorted(export.files)
    assert "limits/replicas/tests/replicas.02-big.deny.object.yaml" in names
    assert "limits/replicas/tests/replicas.04-mallory.deny.request.yaml" in names
    assert "limits/replicas--replicas-team-a/binding.yaml" in names
    assert "limits/label/tests/label.06-labelled.allow.gold.yaml" in names


def test_the_kaptest_export_is_one_manifest_with_object_references():
    export = export_suite("kaptest", DOCUMENTS, CASES, version="1.36", name="limits")
    manifest = load_documents(export.files["limits/kaptest.yaml"], source="k")[0]
    assert manifest["policies"] == ["policies.yaml"]
    first = manifest["vapTestSuites"][0]
    assert first["policy"] == "replicas"
    assert first["tests"][0] == {
        "expect": "admit",
        "object": {"kind": "Deployment", "name": "small", "namespace": "apps"},
    }
    mutation = manifest["mapTestSuites"][0]["tests"][0]
    assert mutation["expect"] == "mutate"
    assert mutation["expectObject"] == {
        "kind": "ConfigMap",
        "name": "cm-expected-6",
        "namespace": "apps",
    }


def test_authorizer_mocks_export_to_kat_and_run_the_same(tmp_path):
    may_create = "authorizer.group('').resource('secrets').namespace('apps').check('get').allowed()"
    policy = [
        document(
            "ValidatingAdmissionPolicy",
            "may-create",
            {
                "failurePolicy": "Fail",
                "matchConstraints": CONFIGMAPS,
                "validations": [{"expression": may_create}],
            },
        )
    ]
    cases = [
        {
            "name": "allowed to read secrets",
            "object": CONFIGMAP,
            "authorizer": [{"resource": "secrets", "verb": "get", "decision": "allow"}],
            "expect": {"result": "allow"},
        },
        {"name": "not allowed", "object": CONFIGMAP, "expect": {"result": "deny"}},
    ]
    export = export_suite("kat", policy, cases, version="1.36", name="authz")
    _write(tmp_path, export.files)
    report = run([tmp_path / "authz"])
    assert report.ok, report.to_text()
    assert [r.outcome["result"] for r in report.results] == ["allow", "deny"]
