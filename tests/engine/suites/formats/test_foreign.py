"""Other tools' test files are named for what they are instead of being misread as kaptest."""

from __future__ import annotations

import pytest

from policyeditor.engine.suites import discover
from policyeditor.engine.suites.formats.foreign import foreign_format
from policyeditor.engine.suites.formats.kaptest import looks_like_kaptest

KYVERNO_TEST = """\
apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata:
  name: disallow-latest-tag
policies:
  - disallow_latest_tag.yaml
resources:
  - resource.yaml
results:
  - policy: disallow-latest-tag
    rule: require-image-tag
    resources: [myapp-pod]
    kind: Pod
    result: pass
"""

# The same test in the layout before apiVersion/kind: a top-level name, one `resource` per result.
LEGACY_KYVERNO_TEST = "name: disallow-latest-tag\n" + KYVERNO_TEST.split(
    "  name: disallow-latest-tag\n"
)[1].replace("resources: [myapp-pod]", "resource: myapp-pod")


@pytest.mark.parametrize(
    ("doc", "what"),
    [
        (
            {"apiVersion": "cli.kyverno.io/v1alpha1", "kind": "Values"},
            "a Kyverno CLI values file (cli.kyverno.io/v1alpha1 Values)",
        ),
        (
            {"apiVersion": "chainsaw.kyverno.io/v1alpha1", "kind": "Test"},
            "a Kyverno Chainsaw test (chainsaw.kyverno.io/v1alpha1 Test)",
        ),
        (
            {"apiVersion": "test.gatekeeper.sh/v1alpha1", "kind": "Suite"},
            "a Gatekeeper gator test suite (test.gatekeeper.sh/v1alpha1 Suite)",
        ),
        (
            {"apiVersion": "cli.kyverno.io/v1alpha1", "kind": "UserInfo"},
            "a Kyverno CLI user info file (cli.kyverno.io/v1alpha1 UserInfo)",
        ),
    ],
)
def test_each_foreign_layout_is_known_by_its_own_markers(doc, what):
    assert foreign_format(doc) == what


@pytest.mark.parametrize(
    "doc",
    [
        {"apiVersion": "kyverno.io/v1", "kind": "ClusterPolicy"},
        {"apiVersion": "cli.kyverno.io/v1alpha1", "kind": "Test"},
        {"policies": ["p.yaml"], "results": [{"policy": "p", "rule": "r", "status": "pass"}]},
        {"apiVersion": "policyeditor.dev/v1", "kind": "PolicyTest"},
        {"policies": ["p.yaml"], "vapTestSuites": []},
        "text",
    ],
)
def test_policies_and_our_own_formats_are_not_foreign(doc):
    assert foreign_format(doc) is None


def test_a_document_with_apiversion_is_never_a_kaptest_manifest():
    assert looks_like_kaptest({"policies": ["p.yaml"], "testSuites": []})
    assert not looks_like_kaptest({"apiVersion": "x/v1", "kind": "Test", "policies": ["p.yaml"]})


def test_a_kyverno_test_of_kyverno_policies_is_read_and_says_which_policy_it_cannot_run(tmp_path):
    path = tmp_path / "kyverno-test.yaml"
    path.write_text(KYVERNO_TEST)
    (tmp_path / "disallow_latest_tag.yaml").write_text(
        "apiVersion: kyverno.io/v1\nkind: ClusterPolicy\nmetadata:\n  name: disallow-latest-tag\n"
    )
    (tmp_path / "resource.yaml").write_text(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: myapp-pod\n"
    )
    cases, errors = discover([path])
    assert errors == []
    assert [c.error for c in cases] == [
        "results[0]: policy 'disallow-latest-tag' is a ClusterPolicy; policyeditor runs "
        "ValidatingAdmissionPolicy and MutatingAdmissionPolicy results"
    ]


def test_a_legacy_kyverno_test_is_not_read_as_kaptest(tmp_path):
    path = tmp_path / "test.yaml"
    path.write_text(LEGACY_KYVERNO_TEST)
    _, errors = discover([path])
    # read as a Kyverno test: the missing policy file is what is wrong, not "unknown field"
    assert errors[0].message.startswith("policies[0]: disallow_latest_tag.yaml: file not found")


def test_a_kyverno_values_file_given_as_a_suite_is_named(tmp_path):
    path = tmp_path / "values.yaml"
    path.write_text("apiVersion: cli.kyverno.io/v1alpha1\nkind: Values\nnamespaceSelector: []\n")
    _, errors = discover([path])
    assert errors[0].message.startswith(
        "values.yaml is a Kyverno CLI values file (cli.kyverno.io/v1alpha1 Values), "
        "a format policyeditor does not run yet"
    )
