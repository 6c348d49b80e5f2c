"""`--crd` on every subcommand and `crds:` in suites, for each real CRD."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
import yaml

from policyeditor.cli import main
from tests.crd_cases import BY_ID, CASES, CrdCase, get_path

IDS = [c.id for c in CASES]


def run(*argv: str) -> tuple[int, str, str]:
    """Exit status, stdout and stderr of one invocation."""
    out, err = io.StringIO(), io.StringIO()
    status = main(list(argv), stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


def _write(tmp_path: Path, name: str, *documents: dict) -> str:
    path = tmp_path / name
    path.write_text(yaml.safe_dump_all(list(documents), sort_keys=False))
    return str(path)


@pytest.fixture(params=CASES, ids=IDS)
def case(request: pytest.FixtureRequest) -> CrdCase:
    return request.param


def test_validate_warns_of_a_misspelled_field_of_the_crd(case, tmp_path):
    policy = _write(tmp_path, "policy.yaml", case.vap(case.valid, case.typo))
    status, out, err = run("validate", "--crd", str(case.path), policy)
    assert status == 0, err
    assert "spec.validations[1].expression: " in err
    assert f"{case.api_version}, Kind={case.kind}: ERROR" in err
    assert f"undefined field '{case.typo_field}'" in err
    assert "spec.validations[0]" not in err


def test_validate_without_the_crd_cannot_see_the_misspelling(tmp_path):
    case = BY_ID["certificate"]
    policy = _write(tmp_path, "policy.yaml", case.vap(case.typo))
    status, _out, err = run("validate", policy)
    assert status == 0 and "undefined field" not in err


def test_eval_allows_the_valid_cr_and_denies_the_changed_one(case, tmp_path):
    policy = _write(tmp_path, "policy.yaml", case.vap(case.valid))
    good = _write(tmp_path, "good.yaml", case.object())
    bad = _write(tmp_path, "bad.yaml", case.denied_object())
    crd = str(case.path)
    assert run("eval", "--crd", crd, "--object", good, policy)[0] == 0
    status, out, _err = run("eval", "--crd", crd, "--object", bad, "-o", "json", policy)
    assert status == 1
    assert f"failed expression: {case.valid}" in json.loads(out)["message"]


def test_eval_merges_an_apply_configuration_into_a_list_map(case, tmp_path):
    policy = _write(tmp_path, "mutation.yaml", case.map(case.list_map))
    obj = _write(tmp_path, "object.yaml", case.object())
    status, out, err = run("eval", "--crd", str(case.path), "--object", obj, "-o", "json", policy)
    assert status == 0, out + err
    path, value = case.list_map_check
    result = json.loads(out)["object"]
    assert get_path(result, path) == value
    assert get_path(result, case.list_map_kept) == get_path(case.object(), case.list_map_kept)


def test_eval_refuses_an_apply_configuration_on_an_atomic_list(case, tmp_path):
    policy = _write(tmp_path, "mutation.yaml", case.map(case.atomic))
    obj = _write(tmp_path, "object.yaml", case.object())
    status, out, _err = run("eval", "--crd", str(case.path), "--object", obj, "-o", "json", policy)
    assert status == 1
    assert f"may not mutate atomic arrays, maps or structs: {case.atomic_path}" in out


def test_eval_with_a_param_of_the_crd_kind(case, tmp_path):
    files = _write(
        tmp_path,
        "policy.yaml",
        case.vap(case.param_valid, params=True),
        case.binding("limits"),
        case.object("limits"),
    )
    obj = _write(tmp_path, "object.yaml", case.object())
    status, out, err = run("eval", "--crd", str(case.path), "--object", obj, files)
    assert status == 0, out + err
    warned = _write(tmp_path, "warned.yaml", case.vap(case.param_typo, params=True))
    _status, _out, err = run("validate", "--crd", str(case.path), warned)
    assert f"undefined field '{case.param_typo_field}'" in err


def _passes(*argv: str) -> str:
    """The output of a `policyeditor test` run in which every case passed."""
    status, out, _err = run("test", *argv)
    assert status == 0, out
    return out


def _suite(tmp_path: Path, policy: dict, cases: list[dict], crd: str = "", **fields) -> None:
    """A PolicyTest suite over one policy file, with the CRD text as its `crds:` file if given."""
    _write(tmp_path, "policy.yaml", policy)
    suite = {"apiVersion": "policyeditor.dev/v1", "kind": "PolicyTest", "policies": ["policy.yaml"]}
    if crd:
        (tmp_path / "crd.yaml").write_text(crd)
        suite["crds"] = ["crd.yaml"]
    _write(tmp_path, "crd.policytest.yaml", {**suite, **fields, "cases": cases})


def test_a_policytest_suite_names_its_crds(case, tmp_path):
    cases = [
        {"name": "valid", "object": case.object(), "expect": {"result": "allow"}},
        {"name": "denied", "object": case.denied_object(), "expect": {"result": "deny"}},
    ]
    _suite(tmp_path, case.vap(case.valid), cases, case.path.read_text(), kubernetesVersion="1.34")
    assert _passes(str(tmp_path)).strip().endswith("2 passed, 0 failed")


def test_a_policytest_suite_rejects_a_cr_its_crd_refuses(tmp_path):
    case = BY_ID["certificate"]
    bad = case.object()
    bad["spec"]["dnsNames"] = "web.example.com"
    expect = {"result": "error", "messages": ["must be of type array"]}
    cases = [{"name": "wrong type", "object": bad, "expect": expect}]
    _suite(tmp_path, case.vap(case.valid), cases, case.path.read_text())
    _passes(str(tmp_path))


def test_a_suite_with_a_broken_crd_fails_with_the_api_servers_message(tmp_path):
    case = BY_ID["prometheusrule"]
    crd = case.path.read_text().replace("scope: Namespaced", "scope: Everywhere")
    _suite(tmp_path, case.vap("true"), [{"name": "c", "object": case.object()}], crd)
    status, out, _err = run("test", str(tmp_path))
    assert status == 1
    assert (
        'crds: CustomResourceDefinition.apiextensions.k8s.io "prometheusrules.monitoring.coreos.com" is invalid: spec.scope: Unsupported value: "Everywhere"'
        in out
    )


def test_test_crd_applies_to_every_suite(tmp_path):
    case = BY_ID["gateway"]
    expect = {"result": "error", "messages": [case.atomic_path]}
    _suite(
        tmp_path,
        case.map(case.atomic),
        [{"name": "atomic", "object": case.object(), "expect": expect}],
    )
    assert run("test", str(tmp_path))[0] == 1  # without the CRD the list is merged schemaless
    _passes("--crd", str(case.path), "-j", "2", str(tmp_path))


def test_kaptest_crds_type_the_custom_resources(tmp_path):
    case = BY_ID["rollout"]
    (tmp_path / "crd.yaml").write_text(case.path.read_text())
    _write(tmp_path, "policy.yaml", case.vap(case.valid))
    bad = case.denied_object()
    bad["metadata"]["name"] = "bad"
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default"}}
    _write(tmp_path, "objects.yaml", case.object("good"), bad, namespace)
    manifest = {
        "validatingAdmissionPolicies": ["policy.yaml"],
        "resources": ["objects.yaml"],
        "crds": ["crd.yaml"],
        "testSuites": [
            {
                "policy": f"{case.id}-policy",
                "tests": [
                    {"object": {"kind": "Rollout", "name": "good"}, "expect": "admit"},
                    {"object": {"kind": "Rollout", "name": "bad"}, "expect": "deny"},
                ],
            }
        ],
    }
    _write(tmp_path, "kaptest.yaml", manifest)
    assert _passes(str(tmp_path)).strip().endswith("2 passed, 0 failed")


def test_cel_with_crd_warns_of_a_misspelled_field_and_a_pruned_one(tmp_path):
    case = BY_ID["certificate"]
    obj = case.object()
    obj["spec"]["colour"] = "blue"
    path = _write(tmp_path, "object.yaml", obj)
    status, out, err = run("cel", "--crd", str(case.path), "--object", path, case.typo)
    assert status == 1  # the misspelled field does not exist at run time either
    assert 'warning: unknown field "spec.colour"' in err
    assert "undefined field 'secretNme'" in err
    status, out, err = run("cel", "--crd", str(case.path), "--object", path, case.valid)
    assert status == 0 and out.strip() == "true"


def test_a_conflicting_crd_file_is_a_usage_error(tmp_path):
    crd = yaml.safe_load(BY_ID["certificate"].path.read_text())
    crd["metadata"]["name"] = "certs.cert-manager.io"
    crd["spec"]["names"]["plural"] = "certs"
    other = _write(tmp_path, "other.yaml", crd)
    policy = _write(tmp_path, "policy.yaml", BY_ID["certificate"].vap("true"))
    status, _out, err = run(
        "validate", "--crd", str(BY_ID["certificate"].path), "--crd", other, policy
    )
    assert status == 2
    assert '"Certificate" is already in use' in err


def test_a_crd_bundle_over_the_api_servers_limit_is_refused(tmp_path):
    big = tmp_path / "big.yaml"
    big.write_text("# padding\n" * (5 * 1024 * 1024 // 10 + 1))
    policy = _write(tmp_path, "policy.yaml", BY_ID["certificate"].vap("true"))
    status, _out, err = run("validate", "--crd", str(big), policy)
    assert status == 2
    assert "input too large" in err and "3 MiB" in err
