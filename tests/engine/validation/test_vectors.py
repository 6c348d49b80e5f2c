"""Every validate_policy vector of the conformance corpus (validated without defaulting)."""

from __future__ import annotations

import pytest

from policyeditor.engine.validation.documents import validate_document
from tests.vectors import load_vectors, vector_id

VECTORS = [
    record for record in load_vectors("validation.jsonl") if record["kind"] == "validate_policy"
]


@pytest.mark.parametrize("record", VECTORS, ids=[vector_id(r, i) for i, r in enumerate(VECTORS)])
def test_validation_vector_matches_kubernetes(record):
    errors = validate_document(record["policy"], old=record.get("old_policy"), default=False)
    rendered = [str(error) for error in errors]
    expected = record["expect_errors"]
    if not expected:
        assert rendered == []
        return
    if record.get("expect_errors_mode") == "subset":
        missing = [text for text in expected if not any(text in line for line in rendered)]
        assert not missing, f"missing {missing} in {rendered}"
    else:
        assert len(rendered) == len(expected), rendered
        for text, line in zip(expected, rendered, strict=True):
            assert text in line
