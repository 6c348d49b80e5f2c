"""Static manifests (KEP-5793): the loader's rules in its words, the reserved suffix, the layout."""

from __future__ import annotations

import copy

import yaml

from policyeditor.engine.validation import static_layout, validate_documents, warnings_for
from tests.builders import document, rules, vap_binding

POLICY = document(
    "ValidatingAdmissionPolicy",
    "deny-privileged.static.k8s.io",
    {
        "matchConstraints": rules("pods", group="", operations=("CREATE",)),
        "validations": [{"expression": "true"}],
    },
)
BINDING = vap_binding("deny-privileged-binding.static.k8s.io", "deny-privileged.static.k8s.io")


def messages(docs: list[dict], version: str = "1.37", **options) -> list[str]:
    return [
        str(error) for _, error in validate_documents(docs, version=version, static=True, **options)
    ]


def test_a_valid_static_set_has_no_errors():
    assert messages([POLICY, BINDING]) == []


def test_names_must_end_with_the_static_suffix():
    policy = copy.deepcopy(POLICY)
    policy["metadata"]["name"] = "deny-privileged"
    binding = copy.deepcopy(BINDING)
    binding["spec"]["policyName"] = "deny-privileged"
    found = messages([policy, binding], files=["policy.yaml", "binding.yaml"])
    assert (
        'metadata.name: "deny-privileged" in file "policy.yaml" must have a name ending with '
        '".static.k8s.io"' in found
    )
    assert (
        'spec.policyName: binding "deny-privileged-binding.static.k8s.io": spec.policyName '
        '"deny-privileged" must end with ".static.k8s.io"' in found
    )


def test_params_are_not_supported():
    policy = copy.deepcopy(POLICY)
    policy["spec"]["paramKind"] = {"apiVersion": "v1", "kind": "ConfigMap"}
    binding = copy.deepcopy(BINDING)
    binding["spec"]["paramRef"] = {"name": "limits", "parameterNotFoundAction": "Deny"}
    found = messages([policy, binding])
    assert (
        'spec.paramKind: ValidatingAdmissionPolicy "deny-privileged.static.k8s.io": '
        "spec.paramKind is not supported for static manifests" in found
    )
    assert (
        'spec.paramRef: binding "deny-privileged-binding.static.k8s.io": spec.paramRef is not '
        "supported for static manifests" in found
    )


def test_a_binding_needs_its_policy_in_the_same_set():
    assert messages([BINDING]) == [
        'spec.policyName: binding "deny-privileged-binding.static.k8s.io" references policy '
        '"deny-privileged.static.k8s.io" which does not exist in the manifest directory'
    ]


def test_only_v1_is_supported():
    policy = copy.deepcopy(POLICY)
    policy["apiVersion"] = "admissionregistration.k8s.io/v1beta1"
    found = messages([policy, BINDING])
    assert any("static manifests support only admissionregistration.k8s.io/v1" in m for m in found)


def test_other_kinds_and_unknown_fields_are_errors():
    policy = copy.deepcopy(POLICY)
    policy["spec"]["validation"] = []
    config_map = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "limits"}}
    found = messages([policy, BINDING, config_map])
    assert "kind: unsupported resource type /v1, Kind=ConfigMap" in found
    assert any("validation" in m and "unknown field" in m for m in found)


def test_duplicate_names_are_reported_with_both_files():
    found = messages([POLICY, copy.deepcopy(POLICY), BINDING], files=["a.yaml", "b.yaml", "c.yaml"])
    assert (
        'metadata.name: duplicate name "deny-privileged.static.k8s.io" found in file "b.yaml" '
        '(previously seen in "a.yaml")' in found
    )


def test_the_feature_needs_kubernetes_1_36_and_is_on_by_default_from_1_37():
    assert any(
        "requires Kubernetes 1.36 or later" in m for m in messages([POLICY, BINDING], "1.35")
    )
    assert messages([POLICY, BINDING], "1.36") == []


def test_the_api_rejects_the_reserved_suffix_from_1_37_and_warns_in_1_36():
    [(_, error), _binding] = validate_documents([POLICY, BINDING], version="1.37")
    assert error.path == "metadata.name"
    assert (
        "are reserved for static manifest-based configurations and cannot be managed via the API"
        in error.message
    )
    assert validate_documents([POLICY, BINDING], version="1.36") == []
    assert any("will be reserved" in w.message for w in warnings_for(POLICY, version="1.36"))


def test_the_layout_holds_a_directory_per_plugin_and_the_admission_configuration():
    mutating = document("MutatingAdmissionPolicy", "label.static.k8s.io", {})
    files = static_layout([POLICY, BINDING, mutating, {"kind": "ConfigMap"}], base_dir="/etc/k8s")
    assert sorted(files) == [
        "admission-configuration.yaml",
        "mutating-policies/label.static.k8s.io.yaml",
        "validating-policies/deny-privileged.static.k8s.io.yaml",
    ]
    config = yaml.safe_load(files["admission-configuration.yaml"])
    assert config["apiVersion"] == "apiserver.config.k8s.io/v1"
    assert config["kind"] == "AdmissionConfiguration"
    assert config["plugins"] == [
        {
            "name": "ValidatingAdmissionPolicy",
            "configuration": {
                "apiVersion": "apiserver.config.k8s.io/v1",
                "kind": "ValidatingAdmissionPolicyConfiguration",
                "staticManifestsDir": "/etc/k8s/validating-policies/",
            },
        },
        {
            "name": "MutatingAdmissionPolicy",
            "configuration": {
                "apiVersion": "apiserver.config.k8s.io/v1",
                "kind": "MutatingAdmissionPolicyConfiguration",
                "staticManifestsDir": "/etc/k8s/mutating-policies/",
            },
        },
    ]
    policy_file = list(
        yaml.safe_load_all(files["validating-policies/deny-privileged.static.k8s.io.yaml"])
    )
    assert [d["kind"] for d in policy_file] == [
        "ValidatingAdmissionPolicy",
        "ValidatingAdmissionPolicyBinding",
    ]
