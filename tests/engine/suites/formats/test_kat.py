"""Loading kat directories: file names decide the case, its policy, its inputs and expectations."""

from __future__ import annotations

from pathlib import Path

import pytest

from policyeditor.engine.suites.formats.kat import is_kat_dir, is_policy_file, load_kat
from policyeditor.engine.suites.model import UNSET, SuiteError
from tests.vectors import DATA

PASSING = DATA / "suites" / "passing" / "kat"
FAILING = DATA / "suites" / "failing" / "kat-mismatches"

POLICY = """apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: {name}
spec:
  validations:
  - expression: "true"
"""
OBJECT = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: default}\n"


def _cases(directory: Path) -> dict:
    return {case.name: case for case in load_kat(directory)}


def _suite(tmp_path: Path, files: dict[str, str], policies: tuple[str, ...] = ("p",)) -> Path:
    (tmp_path / "policies.yaml").write_text("---\n".join(POLICY.format(name=n) for n in policies))
    tests = tmp_path / "tests"
    tests.mkdir()
    for name, text in files.items():
        (tests / name).write_text(text)
    return tmp_path


def _case_error(
    tmp_path: Path,
    files: dict[str, str],
    policies: tuple[str, ...] = ("p",),
    *,
    case: str = "p.x.allow",
) -> str:
    """The error of `case` in a suite of `files` beside `policies`."""
    return _cases(_suite(tmp_path, files, policies))[case].error


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("policy.yaml", True),
        ("policies.yml", True),
        ("binding.yaml", True),
        ("team.policy.yaml", True),
        ("team.bindings.yaml", True),
        ("kustomization.yaml", False),
        ("policy.json", False),
        ("mypolicy.yaml", False),
    ],
)
def test_policy_file_names_follow_kat(name, expected):
    assert is_policy_file(Path(name)) is expected


def test_a_kat_directory_needs_policy_files_and_a_tests_folder(tmp_path):
    assert is_kat_dir(PASSING / "replica-limit")
    assert not is_kat_dir(PASSING)
    (tmp_path / "tests").mkdir()
    assert not is_kat_dir(tmp_path)


def test_files_sharing_a_base_name_merge_into_one_update_case():
    case = _cases(PASSING / "replica-limit")["replica-limit.scale-up-too-fast.deny"]
    assert case.operation == "UPDATE"
    assert case.object["spec"]["replicas"] == 5
    assert case.old_object["spec"]["replicas"] == 2
    assert case.params["data"] == {"maxReplicas": "5"}
    assert case.expect.allowed is False
    assert case.expect.message_exact == "replicas may grow by at most 2 at a time"


def test_an_old_object_alone_is_a_delete():
    case = _cases(PASSING / "replica-limit")["replica-limit.delete-is-not-checked.skip"]
    assert case.operation == "DELETE"
    assert case.expect.result == "skip"


def test_request_file_carries_connect_and_request_fields():
    case = _cases(PASSING / "pod-exec")["pod-exec.dev-execs-into-app.deny"]
    assert case.operation == "CONNECT"
    assert case.request["subResource"] == "exec"
    assert case.request["resource"] == {"group": "", "version": "v1", "resource": "pods"}
    assert case.user_info["groups"] == ["system:authenticated"]
    assert case.object["kind"] == "PodExecOptions"


def test_namespace_object_file_and_all_in_one_request():
    cases = _cases(PASSING / "namespace-owner")
    assert cases["namespace-owner.prod-without-owner.deny"].namespace_object["metadata"][
        "labels"
    ] == {"env": "prod"}
    all_in_one = cases["namespace-owner.dev-all-in-one.allow"]
    assert all_in_one.namespace_object["metadata"]["name"] == "sandbox"
    assert all_in_one.request == {"namespace": "sandbox"}
    assert all_in_one.params is UNSET


def test_warnings_and_annotations_side_files():
    cases = _cases(PASSING / "require-app-label")
    warn = cases["require-app-label.unlabelled.warn"]
    assert warn.expect.warnings == ["every workload needs an app label"]
    assert warn.expect.warnings_exact
    audit = cases["require-app-label.unlabelled.audit"]
    assert audit.expect.audit_annotations == {"replicas": "replicas: 3"}
    assert audit.expect.audit_annotations_subset
    assert cases["require-app-label.labelled.allow"].expect.warnings == []


def test_authorizer_file_is_a_list_of_mocks():
    case = _cases(PASSING / "critical-workloads")["critical-workloads.refused.deny"]
    assert case.authorizer[0]["decision"] == "deny"
    assert case.authorizer[1]["decision"] == "allow"


def test_golden_file_sets_the_expected_object_and_its_absence_forbids_mutation():
    cases = _cases(PASSING / "configmap-defaults")
    plain = cases["configmap-defaults.plain"]
    assert plain.expect.object["metadata"]["labels"]["managed-by"] == "policyeditor"
    assert plain.expect.allowed is True  # a mutating case without an expect token is allowed
    assert cases["configmap-defaults.opted-out"].expect.forbid_mutation


def test_conflicting_and_orphan_files_are_case_errors():
    cases = _cases(FAILING)
    assert (
        "conflict: object defined in multiple files" in cases["replica-limit.conflict.deny"].error
    )
    assert (
        "no .object.yaml, .oldObject.yaml or .request.yaml"
        in cases["replica-limit.orphan.deny"].error
    )


def test_the_policy_is_chosen_by_the_longest_matching_prefix(tmp_path):
    suite = _suite(
        tmp_path, {"ab.c.allow.object.yaml": OBJECT, "a.b.allow.object.yaml": OBJECT}, ("a", "ab")
    )
    cases = _cases(suite)
    assert cases["ab.c.allow"].policy == "ab"
    assert cases["a.b.allow"].policy == "a"


def test_a_single_policy_needs_no_prefix(tmp_path):
    cases = _cases(_suite(tmp_path, {"anything.allow.object.yaml": OBJECT}))
    assert cases["anything.allow"].policy == "p"


def test_several_policies_without_a_matching_prefix_is_a_case_error(tmp_path):
    error = _case_error(
        tmp_path, {"other.x.allow.object.yaml": OBJECT}, ("a", "b"), case="other.x.allow"
    )
    assert "must start with a policy name" in error


def _with_authorizer(text: str) -> dict[str, str]:
    """The files of case p.x.allow: the object and an authorizer file of `text`."""
    return {"p.x.allow.object.yaml": OBJECT, "p.x.allow.authorizer.yaml": text}


# A test file that kat cannot make a case of: the files, and what the case's error says.
CASE_ERRORS = [
    pytest.param(
        {"p.x.allow.object.yaml": OBJECT, "p.x.allow.request.yaml": "operation: DELETE\n"},
        ["operation DELETE conflicts"],
        id="explicit-operation-that-contradicts-the-files",
    ),
    pytest.param(
        {"p.x.allow.request.yaml": "operation: CREATE\nobjekt: {}\n"},
        ['unknown field "objekt"'],
        id="unknown-request-field",
    ),
    pytest.param(
        _with_authorizer("- {verb: get, decision: maybe}\n"),
        ["decision: Unsupported value: 'maybe'"],
        id="bad-authorizer-decision",
    ),
    pytest.param(
        {"p.x.allow.object.yaml": "a: [1, 2\n"},
        ["p.x.allow.object.yaml", "line"],
        id="broken-yaml-names-the-file-and-line",
    ),
    pytest.param(
        _with_authorizer("- verb: get\n  decision: : x\n"),
        ["p.x.allow.authorizer.yaml: line 2: mapping values are not allowed"],
        id="broken-authorizer-yaml-names-the-line-of-the-file",
    ),
]


@pytest.mark.parametrize(("files", "fragments"), CASE_ERRORS)
def test_a_test_file_kat_cannot_read_is_a_case_error(tmp_path, files, fragments):
    error = _case_error(tmp_path, files)
    for fragment in fragments:
        assert fragment in error


def test_a_directory_without_policies_is_a_suite_error(tmp_path):
    (tmp_path / "policy.yaml").write_text(OBJECT)
    (tmp_path / "tests").mkdir()
    with pytest.raises(SuiteError, match="other objects than policies"):
        load_kat(tmp_path)


def test_an_empty_tests_folder_is_a_suite_error(tmp_path):
    (tmp_path / "policy.yaml").write_text(POLICY.format(name="p"))
    (tmp_path / "tests").mkdir()
    with pytest.raises(SuiteError, match="no test files"):
        load_kat(tmp_path)


# What kat's own reader does (zemanlx/kat internal/loader request.go and suite.go,
# internal/evaluator match.go and evaluator.go), where the API server has no say.


def _configmap_policy(kind: str) -> str:
    """The head of a policy `p` of `kind` on ConfigMap creates and updates; its spec goes on."""
    return f"""apiVersion: admissionregistration.k8s.io/v1
kind: {kind}
metadata:
  name: p
spec:
  matchConstraints:
    resourceRules:
    - {{apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [configmaps]}}
"""


DENY_ALL = (
    _configmap_policy("ValidatingAdmissionPolicy")
    + """  validations:
  - expression: "false"
    message: no configmaps here
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: p-prod
spec:
  policyName: p
  validationActions: [Deny]
  matchResources:
    namespaceSelector:
      matchLabels: {env: prod}
"""
)

LABEL_ADDER = (
    _configmap_policy("MutatingAdmissionPolicy")
    + """  failurePolicy: Fail
  reinvocationPolicy: Never
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: 'Object{metadata: Object.metadata{labels: {"added": "yes"}}}'
"""
)


def _run(tmp_path: Path, policies: str, files: dict[str, str]) -> dict:
    from policyeditor.engine.suites.case import run_case

    (tmp_path / "policies.yaml").write_text(policies)
    tests = tmp_path / "tests"
    tests.mkdir()
    for name, text in files.items():
        (tests / name).write_text(text)
    return {case.name: (case, run_case(case)) for case in load_kat(tmp_path)}


def test_a_request_file_may_carry_apiversion_and_kind(tmp_path):
    request = "apiVersion: admission.k8s.io/v1\nkind: AdmissionRequest\noperation: CREATE\n"
    files = {"p.x.allow.request.yaml": request + "object:\n  " + OBJECT.replace("\n", "\n  ")}
    case = _cases(_suite(tmp_path, files))["p.x.allow"]
    assert case.error is None
    assert case.operation == "CREATE"
    assert "apiVersion" not in case.request and "kind" not in case.request


def test_without_a_namespace_object_every_namespace_selector_matches(tmp_path):
    results = _run(tmp_path, DENY_ALL, {"p.in-default.deny.object.yaml": OBJECT})
    case, result = results["p.in-default.deny"]
    assert result.passed, result.failures
    assert result.outcome["allowed"] is False


def test_a_namespace_object_still_decides_the_namespace_selector(tmp_path):
    namespace = "apiVersion: v1\nkind: Namespace\nmetadata: {name: default, labels: {env: dev}}\n"
    files = {
        "p.dev.allow.object.yaml": OBJECT,
        "p.dev.allow.namespaceObject.yaml": namespace,
    }
    case, result = _run(tmp_path, DENY_ALL, files)["p.dev.allow"]
    assert result.passed, result.failures


@pytest.mark.parametrize("token", ["warn", "audit"])
def test_warn_and_audit_without_side_files_only_expect_the_request_allowed(tmp_path, token):
    case = _cases(_suite(tmp_path, {f"p.x.{token}.object.yaml": OBJECT}))[f"p.x.{token}"]
    assert case.expect.allowed is True
    assert case.expect.result is None
    assert case.expect.warnings is None and case.expect.audit_annotations is None


def test_deny_anywhere_in_the_base_name_expects_a_denial(tmp_path):
    case = _cases(_suite(tmp_path, {"p.deny.too-big.object.yaml": OBJECT}))["p.deny.too-big"]
    assert case.expect.allowed is False


def test_a_message_file_counts_beside_an_object_or_old_object_only(tmp_path):
    files = {
        "p.req.deny.request.yaml": "operation: CREATE\nobject:\n  " + OBJECT.replace("\n", "\n  "),
        "p.req.deny.message.txt": "ignored by kat\n",
        "p.obj.deny.object.yaml": OBJECT,
        "p.obj.deny.message.txt": "read\n",
        "p.old.deny.oldObject.yaml": OBJECT,
        "p.old.deny.message.txt": "read too\n",
    }
    cases = _cases(_suite(tmp_path, files))
    assert cases["p.req.deny"].expect.message_exact is None
    assert cases["p.obj.deny"].expect.message_exact == "read"
    assert cases["p.old.deny"].expect.message_exact == "read too"


def test_a_gold_file_counts_beside_an_object_or_request_only(tmp_path):
    files = {
        "p.req.request.yaml": "operation: CREATE\nobject:\n  " + OBJECT.replace("\n", "\n  "),
        "p.req.gold.yaml": OBJECT,
        "p.old.oldObject.yaml": OBJECT,
        "p.old.gold.yaml": OBJECT,
    }
    cases = _cases(_suite(tmp_path, files))
    assert cases["p.req"].expect.object["kind"] == "ConfigMap"
    assert cases["p.old"].expect.object is UNSET
    assert cases["p.old"].expect.forbid_mutation


def test_a_mutation_without_a_gold_file_fails_as_in_kat(tmp_path):
    case, result = _run(tmp_path, LABEL_ADDER, {"p.adds-label.object.yaml": OBJECT})["p.adds-label"]
    assert not result.passed
    assert result.failures[0].startswith(
        "policy mutated the object but no .gold.yaml file was provided"
    )
