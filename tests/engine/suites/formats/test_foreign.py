"""Other tools' test files are named for what they are instead of being misread as kaptest."""

from __future__ import annotations

import pytest

from policyeditor.engine.suites import discover
from policyeditor.engine.suites.files import display
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
            {"apiVersion": "cli.kyverno.io/v1alpha1", "kind": "Test"},
            "a Kyverno CLI test (cli.kyverno.io/v1alpha1 Test)",
        ),
        (
            {"apiVersion": "kyverno.io/v1", "kind": "Test"},
            "a Kyverno CLI test (kyverno.io/v1 Test)",
        ),
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
            {"policies": ["p.yaml"], "results": [{"policy": "p", "rule": "r", "status": "pass"}]},
            "a Kyverno CLI test (the layout without apiVersion and kind)",
        ),
    ],
)
def test_each_foreign_layout_is_known_by_its_own_markers(doc, what):
    assert foreign_format(doc) == what


@pytest.mark.parametrize(
    "doc",
    [
        {"apiVersion": "kyverno.io/v1", "kind": "ClusterPolicy"},
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


def test_a_kyverno_test_given_by_name_says_it_is_a_format_not_run(tmp_path):
    path = tmp_path / "kyverno-test.yaml"
    path.write_text(KYVERNO_TEST)
    cases, errors = discover([path])
    assert cases == []
    assert len(errors) == 1
    assert errors[0].message.startswith(
        "kyverno-test.yaml is a Kyverno CLI test (cli.kyverno.io/v1alpha1 Test), "
        "a format policyeditor does not run yet"
    )
    assert "unknown field" not in errors[0].message


def test_a_legacy_kyverno_test_is_not_read_as_kaptest(tmp_path):
    path = tmp_path / "test.yaml"
    path.write_text(LEGACY_KYVERNO_TEST)
    _, errors = discover([path])
    assert errors[0].message.startswith(
        "test.yaml is a Kyverno CLI test (the layout without apiVersion and kind)"
    )


def test_a_directory_of_kyverno_tests_says_why_nothing_runs(tmp_path):
    (tmp_path / "pod-security").mkdir()
    (tmp_path / "pod-security" / "kyverno-test.yaml").write_text(KYVERNO_TEST)
    cases, errors = discover([tmp_path])
    assert cases == []
    assert [e.message for e in errors] == [
        "no test suites found (*.policytest.yaml, kaptest.yaml, or a kat directory with tests/); "
        f"{display(tmp_path / 'pod-security' / 'kyverno-test.yaml')} is a Kyverno CLI test "
        "(cli.kyverno.io/v1alpha1 Test): formats policyeditor does not run yet"
    ]
