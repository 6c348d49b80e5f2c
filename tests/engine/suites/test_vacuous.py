"""Vacuous passes: cases that pass for the wrong reason say what happened; --strict fails them."""

from __future__ import annotations

import pytest
import yaml

from policyeditor.engine.manifests.dump import dump_documents
from policyeditor.engine.suites.runner import run
from tests.builders import rules, vap
from tests.engine.suites.test_coverage import POLICY, _deployment
from tests.vectors import DATA

KAT = DATA / "suites" / "passing" / "kat"

IGNORED = dump_documents(
    [
        vap(
            "ignores-errors",
            failurePolicy="Ignore",
            matchConstraints=rules(operations=("CREATE",)),
            validations=[{"expression": "object.spec.paused == false"}],
        )
    ]
)


def _suite(tmp_path, cases, policy=POLICY):
    (tmp_path / "policy.yaml").write_text(policy)
    document = {
        "apiVersion": "policyeditor.dev/v1",
        "kind": "PolicyTest",
        "policies": ["policy.yaml"],
        "cases": cases,
    }
    (tmp_path / "cases.policytest.yaml").write_text(yaml.safe_dump(document))
    return tmp_path


def _bound_case(obj: dict, expect: dict) -> dict:
    """A case "c" of replica-limit through its replica-limit-default binding."""
    return {
        "name": "c",
        "policy": "replica-limit",
        "binding": "replica-limit-default",
        "object": obj,
        "expect": expect,
    }


def _only(report):
    (result,) = report.results
    return result


@pytest.mark.parametrize(
    ("case", "happened"),
    [
        (
            {"binding": "replica-limit-default", "object": _deployment(9, "other", tier="web")},
            "allowed: no binding matched the request",
        ),
        (
            {
                "binding": "replica-limit-default",
                "object": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}},
            },
            "allowed: no policy matched the request",
        ),
        (
            {
                "binding": "replica-limit-default",
                "object": _deployment(9, tier="web", **{"opt-out": "true"}),
            },
            "allowed: ValidatingAdmissionPolicy 'replica-limit' with binding "
            "'replica-limit-default' was not evaluated: matchCondition 'not-opted-out' is false",
        ),
    ],
)
def test_an_allowed_expectation_met_without_any_policy_taking_part_is_a_warning(
    tmp_path, case, happened
):
    suite = _suite(
        tmp_path, [{"name": "c", "policy": "replica-limit", "expect": {"allowed": True}, **case}]
    )
    report = run([suite])
    result = _only(report)
    assert result.passed and report.ok
    assert result.vacuous == happened
    assert f"      warning: passed vacuously: {happened}" in report.to_text().splitlines()
    assert report.to_dict()["cases"][0]["vacuous"] == happened
    assert report.to_dict()["vacuous"] == 1


def test_strict_fails_the_vacuous_case_and_says_why(tmp_path):
    case = _bound_case(_deployment(9, "other", tier="web"), {"allowed": True})
    report = run([_suite(tmp_path, [case])], strict=True)
    result = _only(report)
    assert not result.passed and not report.ok
    assert result.failures == [
        "passed vacuously (allowed: no binding matched the request); --strict fails such a case"
    ]
    assert report.to_text().splitlines()[-1] == "0 passed, 1 failed"


def test_a_denial_that_came_from_an_evaluation_error_is_reported_as_such(tmp_path):
    # no tier label: the matchCondition fails, failurePolicy Fail
    case = _bound_case(_deployment(2), {"allowed": False})
    result = _only(run([_suite(tmp_path, [case])]))
    assert result.passed
    assert result.vacuous == (
        'denied by an error: deployments.apps "web" is forbidden: ValidatingAdmissionPolicy '
        "'replica-limit' with binding 'replica-limit-default' denied request: "
        "expression 'object.metadata.labels['tier'] == 'web'' resulted in error: no such key: tier"
    )


def test_an_error_ignored_by_failure_policy_ignore_is_not_a_real_allow(tmp_path):
    case = {
        "name": "c",
        "policy": "ignores-errors",
        "object": _deployment(2),  # no spec.paused: no such key
        "expect": {"allowed": True},
    }
    result = _only(run([_suite(tmp_path, [case], policy=IGNORED)]))
    assert result.passed
    assert result.vacuous == (
        "allowed: an evaluation error was ignored (failurePolicy Ignore): "
        "expression 'object.spec.paused == false' resulted in error: no such key: paused"
    )


@pytest.mark.parametrize(
    ("case", "expect"),
    [
        # A real decision: the validation passed.
        ({"object": _deployment(3, tier="web")}, {"allowed": True}),
        ({"object": _deployment(6, tier="web")}, {"allowed": False}),
        # The format's own words for "left out" and "an error": asked for, so not vacuous.
        ({"object": _deployment(9, "other", tier="web")}, {"result": "skip"}),
        ({"object": _deployment(2)}, {"result": "error"}),
        # A denial whose text the case checks: the case asked for this error.
        ({"object": _deployment(2)}, {"allowed": False, "messages": ["no such key: tier"]}),
    ],
)
def test_cases_that_pass_for_the_right_reason_carry_no_warning(tmp_path, case, expect):
    full = _bound_case(case["object"], expect)
    report = run([_suite(tmp_path, [full])], strict=True)
    result = _only(report)
    assert result.passed, result.failures
    assert result.vacuous == ""
    assert "vacuously" not in report.to_text()


def test_a_failing_case_is_never_called_vacuous(tmp_path):
    case = _bound_case(_deployment(9, "other", tier="web"), {"allowed": False})
    result = _only(run([_suite(tmp_path, [case])]))
    assert not result.passed and result.vacuous == ""


def test_kat_keeps_its_meaning_allow_token_passes_with_a_warning_skip_token_does_not():
    report = run([KAT / "configmap-defaults"])
    vacuous = {r.case.name: r.vacuous for r in report.results if r.vacuous}
    assert vacuous == {
        "configmap-defaults.delete-is-never-mutated": "allowed: no policy matched the request",
        "configmap-defaults.opted-out": "allowed: MutatingAdmissionPolicy 'configmap-defaults' "
        "was not evaluated: matchCondition 'not-opted-out' is false",
    }
    strict = run([KAT / "configmap-defaults"], strict=True)
    assert strict.failed == 2 and strict.passed == len(strict.results) - 2


def test_worker_processes_report_the_same_vacuous_passes(tmp_path):
    paths = [KAT / "configmap-defaults", KAT / "replica-limit"]
    assert run(paths, jobs=2, strict=True).to_dict() == run(paths, jobs=1, strict=True).to_dict()
