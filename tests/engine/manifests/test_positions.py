"""Field paths located in the YAML text, for pointing errors at their lines."""

from __future__ import annotations

from policyeditor.engine.manifests.loading import load_documents
from policyeditor.engine.manifests.positions import field_positions, locate, position_of
from policyeditor.engine.validation.documents import validate_documents

TEXT = """\
# a comment
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: demo
spec:
  failurePolicy: Sometimes
  validations:
  - expression: "true"
  - expression: "false"
    reason: Nope
---
kind: List
items:
- kind: A
  spec: {x: 1}
"""


def test_positions_line_up_with_loaded_documents():
    positions = field_positions(TEXT)
    assert len(positions) == len(load_documents(TEXT)) == 2
    assert positions[0]["spec.failurePolicy"] == (8, 3)
    assert positions[0]["spec.validations[1]"] == (11, 5)
    assert positions[0]["spec.validations[1].reason"] == (12, 5)
    assert positions[1]["spec.x"] == (17, 10)


def test_missing_fields_point_at_their_nearest_parent():
    positions = field_positions(TEXT)[0]
    assert position_of(positions, "spec.matchConstraints") == (7, 1)
    assert position_of(positions, "spec.validations[0].message") == (10, 5)
    assert position_of(positions, "") == (3, 1)
    assert position_of({}, "spec") is None


def test_validation_errors_can_be_located():
    docs = load_documents(TEXT)
    positions = field_positions(TEXT)
    found = {
        str(error): locate(positions, index, error.path)
        for index, error in validate_documents(docs)
    }
    assert found[
        'spec.failurePolicy: Unsupported value: "Sometimes": supported values: "Fail", "Ignore"'
    ] == (8, 3)
    assert locate(positions, 7, "spec") is None


def test_unreadable_text_gives_what_it_can():
    assert field_positions(b"\xff\xfe") == []
    assert field_positions("a: 1\n---\nb: [\n") == [{"": (1, 1), "a": (1, 1)}]
    assert field_positions("") == []
