"""Every validate_policy vector of the conformance corpus (validated without defaulting)."""

from __future__ import annotations

import pytest

from policyeditor.engine.validation.documents import validate_document
from tests.vectors import assert_error_lines, load_vectors, vector_id

VECTORS = [
    record for record in load_vectors("validation.jsonl") if record["kind"] == "validate_policy"
]


@pytest.mark.parametrize("record", VECTORS, ids=[vector_id(r, i) for i, r in enumerate(VECTORS)])
def test_validation_vector_matches_kubernetes(record):
    errors = validate_document(record["policy"], old=record.get("old_policy"), default=False)
    assert_error_lines(record, [str(error) for error in errors])
