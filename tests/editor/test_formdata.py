"""Tests for binding documents to the form and parsing the form back, losslessly."""

from __future__ import annotations

import copy

import pytest
from django.template.loader import render_to_string

from policyeditor.editor.formdata import bind_documents, parse_post, parse_strings
from policyeditor.editor.starters import starters
from tests.editor.formhtml import form_data


def _render(documents: list[dict]) -> str:
    body = render_to_string("editor/documents.html", {"documents": bind_documents(documents)})
    return f'<form id="editor-form">{body}</form>'


def _round_trip(documents: list[dict]) -> list[dict]:
    return parse_post(form_data(_render(documents))).documents


@pytest.mark.parametrize("starter", starters(), ids=lambda s: s.slug)
def test_every_starter_survives_a_form_round_trip_unchanged(starter):
    documents = starter.documents()
    assert _round_trip(documents) == documents


def test_fields_the_form_does_not_show_are_kept():
    doc = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": "p", "uid": "123", "labels": {"a": "b"}},
        "spec": {
            "validations": [{"expression": "true", "futureField": {"x": 1}}],
            "somethingNew": [1, 2],
            "failurePolicy": "Fail",
        },
        "status": {"typeChecking": {}},
    }
    assert _round_trip([doc]) == [doc]


def test_values_of_an_unexpected_shape_are_kept_and_not_editable():
    doc = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": "p"},
        "spec": {"failurePolicy": 7, "matchConstraints": {"resourceRules": "pods"}},
    }
    html = _render([doc])
    assert "edit it in YAML mode" in html
    assert _round_trip([doc]) == [doc]


def test_editing_a_field_changes_only_that_value_and_records_its_path():
    docs = next(s for s in starters() if s.slug == "replica-limit").documents()
    data = form_data(_render(docs))
    name = next(k for k in data if k.endswith(".expression") and ".spec.validations." in k)
    data[name] = "object.spec.replica <= params.maxReplicas"
    parsed = parse_post(data)
    expected = copy.deepcopy(docs)
    expected[0]["spec"]["validations"][0]["expression"] = (
        "object.spec.replica <= params.maxReplicas"
    )
    assert parsed.documents == expected
    assert parsed.target_for(0, "spec.validations[0].expression") == name
    # A deeper path falls back to the nearest control that shows it.
    rules = parsed.target_for(0, "spec.matchConstraints.resourceRules[0].operations[1]")
    assert rules.endswith(".operations")


def test_rows_follow_the_posted_order_and_removed_rows_disappear():
    docs = next(s for s in starters() if s.slug == "deny-privileged").documents()
    docs[0]["spec"]["validations"].append({"expression": "false", "message": "second"})
    data = form_data(_render(docs))
    list_name = next(k for k in data if k.endswith(".spec.validations:rows")).removesuffix(":rows")
    first, second = data.getlist(f"{list_name}:rows")
    data.setlist(f"{list_name}:rows", [second, first])
    assert [v.get("message") for v in parse_post(data).documents[0]["spec"]["validations"]] == [
        "second",
        "privileged containers are not allowed",
    ]
    data.setlist(f"{list_name}:rows", [])
    assert "validations" not in parse_post(data).documents[0]["spec"]


def test_param_objects_are_edited_as_yaml_and_bad_yaml_is_a_problem_not_a_loss():
    docs = next(s for s in starters() if s.slug == "replica-limit").documents()
    data = form_data(_render(docs))
    yaml_name = next(k for k in data if k.endswith(":yaml"))
    data[yaml_name] = "maxReplicas: [unclosed"
    parsed = parse_post(data)
    assert parsed.documents[2] == docs[2]
    assert parsed.problems and parsed.problems[0][0] == 2


def test_strings_lists_spell_the_core_group_as_two_quotes():
    assert parse_strings('"", apps , batch') == ["", "apps", "batch"]
    assert parse_strings("  ") == []


def _rule_operations(documents: list[dict]) -> list[str]:
    return documents[0]["spec"]["matchConstraints"]["resourceRules"][0]["operations"]


def test_ticked_operations_keep_the_documents_order_and_new_ones_follow():
    docs = next(s for s in starters() if s.slug == "deny-privileged").documents()
    docs[0]["spec"]["matchConstraints"]["resourceRules"][0]["operations"] = ["DELETE", "UPDATE"]
    assert _round_trip(docs) == docs
    data = form_data(_render(docs))
    name = next(k for k in data if k.endswith(".operations:present")).removesuffix(":present")
    data.setlist(name, ["CREATE", "UPDATE", "DELETE"])
    assert _rule_operations(parse_post(data).documents) == ["DELETE", "UPDATE", "CREATE"]
    data.setlist(name, ["CREATE", "DELETE"])
    assert _rule_operations(parse_post(data).documents) == ["DELETE", "CREATE"]
