"""Comparing evaluations with expectations: each mismatch is one readable reason."""

from __future__ import annotations

from policyeditor.engine.admission.result import EvaluationResult
from policyeditor.engine.suites.check import check, message_forms, object_diff
from policyeditor.engine.suites.model import Expectation

DENIAL = (
    "deployments.apps \"web\" is forbidden: ValidatingAdmissionPolicy 'replica-limit' with binding "
    "'prod' denied request: replicas must not exceed 5"
)
WARNING = "Validation failed for ValidatingAdmissionPolicy 'replica-limit' with binding 'staging': replicas must not exceed 5"


def _outcome(**fields) -> EvaluationResult:
    base = {"result": "allow", "allowed": True, "status_code": 200, "message": ""}
    return EvaluationResult(**{**base, **fields})


def _denied() -> EvaluationResult:
    return _outcome(result="deny", allowed=False, status_code=403, message=DENIAL)


def test_matching_expectations_give_no_failures():
    expect = Expectation(result="deny", allowed=False, messages=["must not exceed 5"])
    assert check(expect, _denied(), input_object=None) == []


def test_a_different_result_is_reported_with_the_message():
    (failure,) = check(Expectation(result="allow"), _denied(), input_object=None)
    assert failure.startswith("expected result allow, got deny: ")
    assert "must not exceed 5" in failure


def test_kaptest_results_say_admit():
    (failure,) = check(Expectation(result="deny"), _outcome(), input_object=None, kaptest=True)
    assert failure == "expected result deny, got admit"


def test_allowed_is_compared_on_its_own():
    (failure,) = check(Expectation(allowed=True), _denied(), input_object=None)
    assert "expected the request to be allowed, it was denied (result deny)" in failure


def test_messages_are_substrings_of_the_denial_or_a_warning():
    outcome = _outcome(result="warn", warnings=[WARNING])
    assert check(Expectation(messages=["must not exceed"]), outcome, input_object=None) == []
    (failure,) = check(Expectation(messages=["at least 1"]), outcome, input_object=None)
    assert "expected a message containing 'at least 1'" in failure


def test_an_exact_message_may_be_the_full_text_or_the_policy_message():
    assert message_forms(DENIAL) >= {DENIAL, "replicas must not exceed 5"}
    assert (
        check(Expectation(message_exact="replicas must not exceed 5"), _denied(), input_object=None)
        == []
    )
    assert check(Expectation(message_exact=DENIAL), _denied(), input_object=None) == []
    (failure,) = check(
        Expectation(message_exact="replicas must not exceed"), _denied(), input_object=None
    )
    assert failure.startswith("expected the message 'replicas must not exceed', got ")


def test_exact_warnings_compare_one_by_one_in_order():
    outcome = _outcome(result="warn", warnings=[WARNING, "second"])
    good = Expectation(warnings=["replicas must not exceed 5", "second"], warnings_exact=True)
    assert check(good, outcome, input_object=None) == []
    short = Expectation(warnings=["replicas must not exceed 5"], warnings_exact=True)
    (failure,) = check(short, outcome, input_object=None)
    assert failure.startswith("expected the warnings ['replicas must not exceed 5'], got ")


def test_an_empty_warning_list_expects_no_warnings():
    (failure,) = check(Expectation(warnings=[]), _outcome(warnings=[WARNING]), input_object=None)
    assert failure.startswith("expected no warnings")


def test_audit_annotations_are_the_exact_set_with_short_or_full_keys():
    outcome = _outcome(
        audit_annotations={
            "replica-limit/replicas": "6",
            "validation.policy.admission.k8s.io/validation_failure": "[...]",
        }
    )
    assert check(Expectation(audit_annotations={"replicas": "6"}), outcome, input_object=None) == []
    assert (
        check(
            Expectation(audit_annotations={"replica-limit/replicas": "6"}),
            outcome,
            input_object=None,
        )
        == []
    )
    (failure,) = check(Expectation(audit_annotations={}), outcome, input_object=None)
    assert failure == 'expected the audit annotations {}, got {"replicas": "6"}'
    named = {"replicas": "6", "validation.policy.admission.k8s.io/validation_failure": "[...]"}
    assert check(Expectation(audit_annotations=named), outcome, input_object=None) == []


def test_subset_annotations_ignore_keys_not_listed():
    outcome = _outcome(audit_annotations={"p/a": "1", "p/b": "2"})
    assert (
        check(
            Expectation(audit_annotations={"a": "1"}, audit_annotations_subset=True),
            outcome,
            input_object=None,
        )
        == []
    )
    (failure,) = check(
        Expectation(audit_annotations={"a": "9"}, audit_annotations_subset=True),
        outcome,
        input_object=None,
    )
    assert '{"a": "9"}' in failure and '{"a": "1"}' in failure


def test_a_different_mutated_object_is_shown_as_a_unified_diff():
    expected = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "a"},
        "data": {"x": "1"},
    }
    actual = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "a"},
        "data": {"x": "2"},
    }
    (failure,) = check(Expectation(object=expected), _outcome(object=actual), input_object=None)
    assert failure.splitlines()[0] == "the object after mutation differs from the expected one:"
    assert "--- expected" in failure and "+++ actual" in failure
    # The quoting of the YAML lines is the dumper's business; the changed lines are what matter.
    removed = [line for line in failure.splitlines() if line.startswith("-  x: ")]
    added = [line for line in failure.splitlines() if line.startswith("+  x: ")]
    assert [line[len("-  x: ") :].strip("'\"") for line in removed] == ["1"]
    assert [line[len("+  x: ") :].strip("'\"") for line in added] == ["2"]


def test_a_mutation_without_a_golden_file_fails_when_forbidden():
    before = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}
    after = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "a", "labels": {"x": "y"}},
    }
    expect = Expectation(forbid_mutation=True)
    (failure,) = check(expect, _outcome(object=after), input_object=before)
    assert failure.startswith("policy mutated the object but no .gold.yaml file was provided")
    assert check(expect, _outcome(object=before), input_object=before) == []


def test_object_diff_handles_missing_objects():
    diff = object_diff(None, {"a": 1})
    assert "-null" in diff and "+a: 1" in diff
