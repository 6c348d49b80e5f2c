"""`policyeditor lint`, `validate --static` and `export-static` on real files."""

from __future__ import annotations

import io
import json
import zipfile

from policyeditor.cli import main

POLICY = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: team-label.static.k8s.io
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      resources: ["deployments"]
      operations: ["CREATE", "UPDATE"]
  validations:
  - expression: "has(object.metadata.labels.team)"
"""
BINDING = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: team-label-binding.static.k8s.io
spec:
  policyName: team-label.static.k8s.io
  validationActions: [Deny]
"""


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_lint_prints_each_finding_at_its_file_line_with_the_fix(tmp_path):
    path = tmp_path / "policy.yaml"
    path.write_text(POLICY)
    code, out, _ = run("lint", str(path))
    assert code == 0
    assert f"{path}:13:" in out
    assert "warning PE101" in out
    assert "fix: has(object.metadata.labels) && 'team' in object.metadata.labels" in out


def test_lint_strict_exits_1_when_anything_is_found_and_json_lists_the_findings(tmp_path):
    path = tmp_path / "policy.yaml"
    path.write_text(POLICY)
    code, out, _ = run("lint", "--strict", "-o", "json", str(path))
    assert code == 1
    [record] = json.loads(out)
    assert record["code"] == "PE101"
    assert record["path"] == "spec.validations[0].expression"
    assert (record["line"], record["column"]) == (1, 4)
    assert record["name"] == "team-label.static.k8s.io"


def test_lint_of_a_clean_policy_says_so_and_exits_0_even_when_strict(tmp_path):
    path = tmp_path / "policy.yaml"
    path.write_text(POLICY.replace("has(object.metadata.labels.team)", "true"))
    code, out, _ = run("lint", "--strict", str(path))
    assert code == 0
    assert "no CEL pitfalls found" in out


def test_validate_static_checks_the_files_as_one_manifest_set(tmp_path):
    policy, binding = tmp_path / "policy.yaml", tmp_path / "binding.yaml"
    policy.write_text(POLICY)
    binding.write_text(BINDING)
    assert run("validate", "--static", str(policy), str(binding))[0] == 0
    code, out, _ = run("validate", "--static", str(binding))
    assert code == 1
    assert "which does not exist in the manifest directory" in out
    code, out, _ = run("validate", str(policy))
    assert code == 1
    assert "are reserved for static manifest-based configurations" in out


def test_validate_static_names_the_file_of_a_bad_name(tmp_path):
    policy = tmp_path / "policy.yaml"
    policy.write_text(POLICY.replace("team-label.static.k8s.io", "team-label"))
    code, out, _ = run("validate", "--static", str(policy))
    assert code == 1
    assert f'"team-label" in file "{policy}" must have a name ending with ".static.k8s.io"' in out


def test_export_static_writes_the_layout_to_a_directory_or_a_zip(tmp_path):
    source = tmp_path / "bundle.yaml"
    source.write_text(POLICY + "---\n" + BINDING)
    target = tmp_path / "out"
    code, out, _ = run("export-static", str(source), "--out", str(target), "--base-dir", "/srv/adm")
    assert code == 0
    config = (target / "admission-configuration.yaml").read_text()
    assert "staticManifestsDir: /srv/adm/validating-policies/" in config
    assert (target / "validating-policies" / "team-label.static.k8s.io.yaml").exists()
    archive = tmp_path / "static.zip"
    assert run("export-static", str(source), "--out", str(archive))[0] == 0
    with zipfile.ZipFile(archive) as opened:
        assert sorted(opened.namelist()) == [
            "admission-configuration.yaml",
            "validating-policies/team-label.static.k8s.io.yaml",
        ]


def test_validate_static_for_1_36_warns_that_the_feature_gate_is_off_by_default(tmp_path):
    policy, binding = tmp_path / "policy.yaml", tmp_path / "binding.yaml"
    policy.write_text(POLICY)
    binding.write_text(BINDING)
    code, _, err = run("validate", "--static", "--k8s-version", "1.36", str(policy), str(binding))
    assert code == 0
    assert "ManifestBasedAdmissionControlConfig feature gate" in err
    code, out, _ = run("validate", "--static", "--k8s-version", "1.35", str(policy), str(binding))
    assert code == 1
    assert "requires Kubernetes 1.36 or later" in out
