"""Finding suites under paths, filtering with -run, and the report's text and JSON forms."""

from __future__ import annotations

import json

from policyeditor.engine.suites.model import CaseResult, SuiteError, TestCase
from policyeditor.engine.suites.plan import discover
from policyeditor.engine.suites.runner import Report, run
from tests.vectors import DATA, external_path

SUITES = DATA / "suites"
KAT = SUITES / "passing" / "kat"


def _layouts(cases: list[TestCase]) -> set[str]:
    return {case.layout for case in cases}


def test_a_directory_yields_all_three_layouts():
    cases, errors = discover([SUITES / "passing"])
    assert errors == []
    assert _layouts(cases) == {"kat", "policytest"}
    kaptest_cases, kaptest_errors = discover([external_path("kaptest")])
    assert _layouts(kaptest_cases) == {"kaptest"}
    assert kaptest_errors == []


def test_directory_discovery_picks_kaptest_yaml_but_not_other_manifests():
    cases, _ = discover([external_path("kaptest", "internal", "tester", "testdata")])
    sources = {case.source for case in cases}
    assert all(source.endswith("kaptest.yaml") for source in sources)
    assert len(sources) == 5


def test_a_kat_tests_folder_or_policy_file_selects_its_directory():
    from_tests, _ = discover([KAT / "replica-limit" / "tests"])
    from_policy, _ = discover([KAT / "replica-limit" / "policy.yaml"])
    whole, _ = discover([KAT / "replica-limit"])
    assert [c.name for c in from_tests] == [c.name for c in whole] == [c.name for c in from_policy]


def test_a_single_kat_test_file_selects_its_case():
    cases, _ = discover([KAT / "replica-limit" / "tests" / "replica-limit.six.deny.object.yaml"])
    assert [c.name for c in cases] == ["replica-limit.six.deny"]


def test_a_suite_named_twice_is_loaded_once():
    cases, _ = discover([KAT / "pod-exec", KAT / "pod-exec" / "tests", KAT])
    names = [c.full_name for c in cases]
    assert len(names) == len(set(names))


def test_an_explicit_file_is_read_by_content_whatever_its_name(tmp_path):
    policy = SUITES / "passing" / "policytest" / "flaky.yaml"
    renamed = tmp_path / "suite.yaml"
    renamed.write_text(
        f"apiVersion: policyeditor.dev/v1\nkind: PolicyTest\npolicies: [{policy}]\n"
        "cases:\n- name: a\n  object: {kind: ConfigMap}\n  expect: {result: allow}\n"
    )
    cases, _ = discover([renamed])
    assert _layouts(cases) == {"policytest"}
    manifest = external_path(
        "kaptest",
        "internal",
        "tester",
        "testdata",
        "vap-with-params.test",
        "invalid-no-params.yaml",
    )
    cases, _ = discover([manifest])
    assert _layouts(cases) == {"kaptest"}


def test_missing_paths_and_empty_directories_are_errors(tmp_path):
    cases, errors = discover([tmp_path / "missing", tmp_path])
    assert cases == []
    assert [e.message for e in errors] == [
        "no such file or directory",
        "no test suites found (*.policytest.yaml, kaptest.yaml, kyverno-test.yaml, or a kat directory with tests/)",
    ]


def test_run_regex_keeps_matching_cases_only():
    report = run([KAT / "replica-limit"], run_regex=r"six\.deny$")
    assert [r.case.name for r in report.results] == ["replica-limit.six.deny"]


def test_run_regex_matches_the_suite_name_too():
    report = run([SUITES / "failing"], run_regex="kat-mismatches/replica-limit.(conflict|orphan)")
    assert sorted(r.case.name for r in report.results) == [
        "replica-limit.conflict.deny",
        "replica-limit.orphan.deny",
    ]


def test_an_invalid_regex_is_reported_not_raised():
    report = run([KAT], run_regex="(")
    assert report.results == []
    assert report.errors[0].source == "-run"
    assert not report.ok


def test_malformed_cases_fail_without_evaluation():
    report = run([SUITES / "failing" / "kat-mismatches"], run_regex="conflict")
    (result,) = report.results
    assert not result.passed
    assert result.outcome is None
    assert "conflict: object defined in multiple files" in result.failures[0]


def test_invalid_policies_fail_every_case_with_the_api_server_error():
    report = run([SUITES / "failing" / "invalid-policy"])
    (result,) = report.results
    assert result.failures[0] == "the policies are not valid:"
    assert any('spec.failurePolicy: Unsupported value: "Sometimes"' in f for f in result.failures)


def _case(name: str) -> TestCase:
    return TestCase(name=name, suite="suite.yaml", source="suite.yaml", layout="policytest")


def test_report_text_has_a_line_per_case_indented_reasons_and_the_summary():
    report = Report(
        results=[
            CaseResult(case=_case("good"), passed=True),
            CaseResult(
                case=_case("bad"),
                passed=False,
                failures=["expected result deny, got allow", "line one\nline two"],
            ),
        ],
        errors=[SuiteError("broken.yaml", 'unknown field "x"')],
    )
    assert report.to_text().splitlines() == [
        'FAIL  broken.yaml: unknown field "x"',
        "PASS  suite.yaml :: good",
        "FAIL  suite.yaml :: bad",
        "      expected result deny, got allow",
        "      line one",
        "      line two",
        "1 passed, 2 failed",
    ]
    assert not report.ok


def test_report_json_is_machine_readable():
    report = Report(results=[CaseResult(case=_case("good"), passed=True)])
    data = json.loads(json.dumps(report.to_dict()))
    assert data["passed"] == 1 and data["failed"] == 0 and data["errors"] == []
    assert data["cases"][0] == {
        "suite": "suite.yaml",
        "name": "good",
        "layout": "policytest",
        "source": "suite.yaml",
        "passed": True,
        "failures": [],
        "vacuous": None,
        "notes": [],
    }
    assert data["vacuous"] == 0 and "coverage" not in data
    assert report.ok


def test_a_kubernetes_object_given_as_a_suite_says_it_is_not_one():
    report = run([SUITES / "passing" / "policytest" / "flaky.yaml"])
    assert report.errors[0].message.startswith("holds ValidatingAdmissionPolicy, not a test suite")
