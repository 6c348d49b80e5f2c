"""`policyeditor cel` against the CEL conformance vectors it can express (object/oldObject/params files)."""

from __future__ import annotations

import io
import json

import pytest

from policyeditor.cli import main
from tests.vectors import load_vectors, shift_self_columns, vector_id

_FLAGS = {"object": "--object", "oldObject": "--old-object", "params": "--params"}
# Knobs the command has no option for: those vectors are cel-core's to run.
_KNOBS = (
    "library_version",
    "compatibility_version",
    "env_type",
    "runtime_cost_budget",
    "per_call_cost_limit",
)


def _usable(record: dict) -> bool:
    if record.get("variables") or record.get("error_match") or any(k in record for k in _KNOBS):
        return False
    given = record.get("vars") or {}
    return set(given) <= set(_FLAGS) and all(isinstance(v, dict) for v in given.values())


VECTORS = [(i, r) for i, r in enumerate(load_vectors("cel.jsonl")) if _usable(r)]


def _params():
    for index, record in VECTORS:
        yield pytest.param(record, id=vector_id(record, index))


def test_enough_vectors_are_expressible():
    assert len(VECTORS) > 200


@pytest.mark.parametrize("record", list(_params()))
def test_cel_command_gives_the_kubernetes_answer(record, tmp_path):
    argv = ["cel", record["expr"], "-o", "json"]
    for name, value in (record.get("vars") or {}).items():
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(value))
        argv += [_FLAGS[name], str(path)]
    out, err = io.StringIO(), io.StringIO()
    status = main(argv, stdout=out, stderr=err)
    data = json.loads(out.getvalue())
    if "expect" in record:
        assert (status, data["value"]) == (0, record["expect"]), data["errors"]
    else:
        # "compilation failed: " is the validation wrapper around the CEL error the command prints
        wanted = shift_self_columns(record, record["expect_error"]).removeprefix(
            "compilation failed: "
        )
        assert status == 1
        assert any(wanted in issue["text"] for issue in data["errors"]), data["errors"]
