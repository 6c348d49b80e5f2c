"""Tests for semantic per-document diffs."""

from __future__ import annotations

import copy

from policyeditor.engine.manifests.loading import load_documents
from policyeditor.review.diffs import diff_revisions
from tests.builders import replica_limit as policy

BINDING = {
    "apiVersion": "admissionregistration.k8s.io/v1",
    "kind": "ValidatingAdmissionPolicyBinding",
    "metadata": {"name": "replica-limit-binding"},
    "spec": {"policyName": "replica-limit.example.com", "validationActions": ["Deny"]},
}


def test_formatting_key_order_and_document_order_are_not_changes():
    text_a = """
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: b}
spec: {policyName: p, validationActions: [Deny]}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: p
spec:
  validations:
  - expression: "true"
    message: ok
"""
    text_b = """
kind: ValidatingAdmissionPolicy
apiVersion: admissionregistration.k8s.io/v1
spec:
    validations:
        -   message: 'ok'
            expression: 'true'
metadata: {name: p}   # a comment
---
spec:
  validationActions:
  - Deny
  policyName: p
kind: ValidatingAdmissionPolicyBinding
apiVersion: admissionregistration.k8s.io/v1
metadata: {name: b}
"""
    diff = diff_revisions(load_documents(text_a), load_documents(text_b))
    assert not diff.changed
    assert [doc.status for doc in diff.documents] == ["unchanged", "unchanged"]
    assert diff.unified == ""


def test_a_changed_expression_shows_in_unified_and_side_by_side_with_intraline_marks():
    diff = diff_revisions([policy(5), BINDING], [policy(3), BINDING], old_name="r1", new_name="r2")
    statuses = {doc.label: doc.status for doc in diff.documents}
    assert statuses == {
        "ValidatingAdmissionPolicy replica-limit.example.com": "changed",
        "ValidatingAdmissionPolicyBinding replica-limit-binding": "unchanged",
    }
    changed = diff.documents[0]
    assert "-  - expression: object.spec.replicas <= 5" in changed.unified
    assert "+  - expression: object.spec.replicas <= 3" in changed.unified
    assert changed.unified.startswith("--- r1/ValidatingAdmissionPolicy replica-limit.example.com")
    change_rows = [row for row in changed.rows if row.kind == "change"]
    assert len(change_rows) == 2  # the expression and the message
    marked = [seg.text for seg in change_rows[0].right if seg.changed]
    assert marked == ["3"]
    assert changed.added == 2 and changed.removed == 2


def test_long_unchanged_stretches_are_folded():
    old = policy(5)
    new = copy.deepcopy(old)
    new["spec"]["failurePolicy"] = "Ignore"
    old["spec"]["matchConditions"] = [{"name": f"c{i}", "expression": "true"} for i in range(10)]
    new["spec"]["matchConditions"] = copy.deepcopy(old["spec"]["matchConditions"])
    diff = diff_revisions([old], [new])
    kinds = [row.kind for row in diff.documents[0].rows]
    assert "skip" in kinds
    folded = [row.skipped for row in diff.documents[0].rows if row.kind == "skip"]
    assert max(folded) > 10
    assert len(diff.documents[0].rows) < len(diff.documents[0].new_text.splitlines())


def test_added_removed_and_renamed_documents_are_reported():
    params = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "limits"}, "data": {}}
    renamed = copy.deepcopy(BINDING)
    renamed["metadata"]["name"] = "replica-limit-prod"
    diff = diff_revisions([policy(5), BINDING], [policy(5), renamed, params])
    statuses = [doc.status for doc in diff.documents]
    assert statuses == ["unchanged", "renamed", "added"]
    assert "→" in diff.documents[1].label
    gone = diff_revisions([policy(5), params], [policy(5)])
    assert [doc.status for doc in gone.documents] == ["unchanged", "removed"]
    assert all(row.kind == "delete" for row in gone.documents[1].rows)


def test_markup_in_documents_is_returned_raw_for_the_template_to_escape():
    evil = policy(5)
    evil["spec"]["validations"][0]["message"] = "<script>alert(1)</script>"
    diff = diff_revisions([policy(5)], [evil])
    assert "<script>alert(1)</script>" in diff.documents[0].new_text


def test_odd_stored_documents_do_not_raise():
    diff = diff_revisions([{"kind": "X"}, "not a mapping"], [{"kind": "X"}, {"x": float("nan")}])
    assert diff.changed
    assert "cannot show" in diff.documents[1].new_text


def test_int_and_float_with_the_same_value_are_equal_like_in_yaml():
    old = policy(5)
    new = copy.deepcopy(old)
    old["spec"]["x"] = 1
    new["spec"]["x"] = 1.0
    assert not diff_revisions([old], [new]).changed


def test_each_line_of_a_document_names_the_deepest_field_it_writes():
    from policyeditor.review.diffs import diff_document, line_paths

    text = "spec:\n  validations:\n  - expression: a\n    message: b\n"
    assert line_paths(text) == {
        1: "spec",
        2: "spec.validations",
        3: "spec.validations[0].expression",
        4: "spec.validations[0].message",
    }
    old = {"spec": {"validations": [{"expression": "a"}]}}
    new = {"spec": {"validations": [{"expression": "b"}]}}
    changed = [r for r in diff_document(old, new, label="x").rows if r.kind == "change"]
    assert [r.right_path for r in changed] == ["spec.validations[0].expression"]
