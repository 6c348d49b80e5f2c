"""The cel.jsonl vectors that name Kubernetes libraries, evaluated in an env of just those."""

from __future__ import annotations

import re

import pytest

from tests.engine.cel.library.helpers import eval_error, evaluate
from tests.vectors import load_vectors, vector_id

VECTORS = [(i, r) for i, r in enumerate(load_vectors("cel.jsonl")) if r.get("libraries")]


@pytest.mark.parametrize(
    "record", [r for _, r in VECTORS], ids=[vector_id(r, i) for i, r in VECTORS]
)
def test_library_vector_matches_kubernetes(record: dict) -> None:
    names = tuple(record["libraries"])
    if "expect" in record:
        assert evaluate(record["expr"], names, record.get("vars")) == record["expect"]
        return
    error = eval_error(record["expr"], names, record.get("vars"))
    if "phase" in record:
        assert error.phase == record["phase"]
    expected = record["expect_error"]
    if record.get("error_match") == "regex":
        assert re.search(expected, str(error))
    else:
        assert expected in str(error)


def test_every_named_library_has_vectors() -> None:
    named = {name for _, r in VECTORS for name in r["libraries"]}
    assert {"kubernetes.net.ip", "kubernetes.quantity", "kubernetes.format"} <= named
