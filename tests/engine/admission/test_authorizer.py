"""Mocked authorization for test cases: first matching entry wins, fields left out match anything."""

from __future__ import annotations

import pytest

from policyeditor.engine.admission.authorizer import MockAuthorizer, parse_entries

CREATE_PODS = {
    "user": "alice",
    "verb": "create",
    "apiGroup": "",
    "apiVersion": "*",
    "resource": "pods",
    "subresource": "",
    "namespace": "default",
    "name": "",
    "resourceRequest": True,
}
HEALTHZ = {"user": "alice", "verb": "get", "path": "/healthz", "resourceRequest": False}


def test_fields_left_out_match_any_value():
    (entry,) = parse_entries([{"resource": "pods", "decision": "allow"}])
    assert entry.matches(CREATE_PODS)
    assert entry.matches({**CREATE_PODS, "namespace": "other", "verb": "delete"})


def test_every_given_field_must_equal_the_attribute():
    (entry,) = parse_entries(
        [
            {
                "group": "",
                "resource": "pods",
                "namespace": "default",
                "verb": "create",
                "decision": "allow",
            }
        ]
    )
    assert entry.matches(CREATE_PODS)
    assert not entry.matches({**CREATE_PODS, "verb": "delete"})
    assert not entry.matches({**CREATE_PODS, "apiGroup": "apps"})


def test_an_explicit_empty_subresource_only_matches_the_main_resource():
    (entry,) = parse_entries([{"resource": "pods", "subresource": "", "decision": "allow"}])
    assert entry.matches(CREATE_PODS)
    assert not entry.matches({**CREATE_PODS, "subresource": "exec"})


def test_path_entries_match_only_non_resource_checks():
    (entry,) = parse_entries(
        [{"path": "/healthz", "verb": "get", "decision": "deny", "reason": "no"}]
    )
    assert entry.matches(HEALTHZ)
    assert not entry.matches(CREATE_PODS)
    (resource_entry,) = parse_entries([{"resource": "pods", "decision": "allow"}])
    assert not resource_entry.matches(HEALTHZ)


@pytest.mark.parametrize(
    ("written", "decision"),
    [
        ("allow", "allow"),
        ("Allow", "allow"),
        ("DecisionDeny", "deny"),
        ("NoOpinion", "noOpinion"),
        ("no-opinion", "noOpinion"),
    ],
)
def test_decisions_are_read_in_the_spellings_suites_use(written, decision):
    (entry,) = parse_entries([{"verb": "get", "decision": written}])
    assert entry.decision == decision


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ({"verb": "get"}, "authorizer[0].decision: Unsupported value"),
        (
            [{"verb": "get", "decision": "allow", "colour": "red"}],
            "authorizer[0]: unknown field 'colour'",
        ),
        (["allow"], "authorizer[0]: expected a mapping"),
    ],
)
def test_malformed_entries_are_refused_with_the_entry_named(raw, expected):
    entries = raw if isinstance(raw, list) else [raw]
    with pytest.raises(ValueError, match=expected.replace("[", r"\[").replace("]", r"\]")):
        parse_entries(entries)


def test_a_non_list_is_refused():
    with pytest.raises(ValueError, match="must be a list"):
        parse_entries({"verb": "get"})


def test_the_first_matching_entry_answers_and_checks_are_recorded():
    authorizer = MockAuthorizer(
        parse_entries(
            [
                {"resource": "pods", "namespace": "default", "decision": "deny", "reason": "first"},
                {"resource": "pods", "decision": "allow", "reason": "second"},
            ]
        )
    )
    decision = authorizer.authorize(CREATE_PODS)
    assert (decision.decision, decision.reason) == ("deny", "first")
    assert authorizer.authorize({**CREATE_PODS, "namespace": "x"}).decision == "allow"
    assert authorizer.authorize(HEALTHZ).decision == "noOpinion"
    assert len(authorizer.checks) == 3
