"""The YAML editor's server help: issues placed at line and column, schema keys, values, docs."""

from __future__ import annotations

import pytest
from django.urls import reverse

from policyeditor.editor import live
from policyeditor.editor.yamlassist import diagnostics, field_help
from tests.engine.manifests.test_loading import POLICY

# The loader's demo policy under a comment, its expression cut short (a syntax error on line 8).
TEXT = "# comment first\n" + POLICY.replace("<= 5", "<=")
VAP = ("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicy")


def test_an_issue_is_placed_at_its_fields_line_and_column():
    report = live.Report("1.37")
    report.errors.append(live.Issue(0, "spec.validations[0].expression", "Invalid value"))
    report.warnings.append(live.Issue(0, "spec.paramKind", "a warning", level="warning"))
    found = diagnostics(report, TEXT)
    assert found[0] == {"line": 8, "column": 5, "severity": "error", "message": found[0]["message"]}
    assert "Invalid value" in found[0]["message"]
    # a field that is not written is placed at its nearest written parent
    assert (found[1]["line"], found[1]["column"], found[1]["severity"]) == (6, 1, "warning")


def test_field_help_lists_child_keys_with_their_types_and_docs():
    spec = field_help(*VAP, "spec", "1.37")
    labels = [item["label"] for item in spec["items"]]
    assert {"validations", "matchConstraints", "paramKind"} <= set(labels)
    validations = next(item for item in spec["items"] if item["label"] == "validations")
    assert validations["type"] == "list"
    items = [i["label"] for i in field_help(*VAP, "spec.validations", "1.37")["items"]]
    assert items == ["expression", "message", "messageExpression", "reason"]


def test_field_help_gives_the_values_the_api_server_accepts_and_the_doc():
    failure = field_help(*VAP, "spec.failurePolicy", "1.37")
    assert failure["enum"] == ["Fail", "Ignore"]
    assert failure["doc"].startswith("failurePolicy defines how to handle failures")
    actions = field_help(
        "admissionregistration.k8s.io/v1",
        "ValidatingAdmissionPolicyBinding",
        "spec.validationActions",
        "1.37",
    )
    assert actions["enum"] == ["Audit", "Deny", "Warn"]


@pytest.mark.django_db
def test_the_yaml_help_endpoint_answers_json_and_refuses_an_unknown_version(alice_client):
    url = reverse("editor:yaml_help")
    body = alice_client.get(
        url, {"api": VAP[0], "kind": VAP[1], "path": "spec.failurePolicy", "version": "1.37"}
    ).json()
    assert body["enum"] == ["Fail", "Ignore"]
    assert alice_client.get(url, {"version": "0.1"}).status_code == 400
    assert alice_client.get(url, {"version": "1.37"}).json()["items"] == []
