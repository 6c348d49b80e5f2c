"""Locating the test data: the shared conformance vectors when present, else our copies."""

from __future__ import annotations

import json
import re
from pathlib import Path

TESTS = Path(__file__).resolve().parent
DATA = TESTS / "data"
SHARED = TESTS.parent.parent / "shared"


def conformance_path(name: str) -> Path:
    """The conformance file `name`: ../shared/conformance when present, else tests/data copy."""
    shared = SHARED / "conformance" / name
    return shared if shared.is_file() else DATA / "conformance" / name


def load_vectors(name: str) -> list[dict]:
    """All records of one conformance file: the shared ones, then those only our copy holds.

    Our copy (tests/data/conformance) adds vectors of our own, transcribed from the Kubernetes
    sources; they run whether or not the shared set is present.
    """
    records = _read(conformance_path(name))
    ours = DATA / "conformance" / name
    if ours.is_file() and ours != conformance_path(name):
        seen = {json.dumps(r, sort_keys=True) for r in records}
        records += [r for r in _read(ours) if json.dumps(r, sort_keys=True) not in seen]
    return records


def _read(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def vector_id(record: dict, index: int) -> str:
    """A readable pytest id for a vector: its index and the Go test it came from."""
    test = record.get("source", {}).get("test", "")
    return f"{index:03d}-{test}"[:120]


def external_path(*parts: str) -> Path:
    """A path inside the external test suites (shared copy when present)."""
    shared = SHARED.joinpath("external", *parts)
    return shared if shared.exists() else DATA.joinpath("external", *parts)


def shift_self_columns(record: dict, expected: str) -> str:
    """The expected error with positions as they are in the vector's own (renamed) expression.

    CRD-rule vectors renamed `self` to `object` but kept the Go test's positions: each `object`
    before the reported column moves it right by two.
    """
    if "`self` rewritten to `object`" not in record.get("note", ""):
        return expected

    def shift(match: re.Match[str]) -> str:
        line, column = int(match.group(1)), int(match.group(2))
        original = record["expr"].replace("object", "self")
        prefix = original[: column - 1]
        return f"<input>:{line}:{column + 2 * prefix.count('self')}"

    return re.sub(r"<input>:(\d+):(\d+)", shift, expected)


def assert_vector_outcome(record: dict, phase: str, message: str, value: object) -> None:
    """An evaluation's (phase, message, value) is the one a CEL conformance vector expects."""
    if "expect_error" in record:
        expected = shift_self_columns(record, record["expect_error"])
        assert phase != "value", f"expected an error, got {value!r}"
        if record.get("phase"):
            assert phase == record["phase"], message
        if record.get("error_match") == "regex":
            assert re.search(expected, message), message
        else:
            assert expected in message
    else:
        assert phase == "value", message
        assert value == record["expect"]
        assert type(value) is type(record["expect"])


def assert_error_lines(record: dict, lines: list[str]) -> None:
    """Rendered validation errors are the ones a validation vector expects (all, or a subset)."""
    expected = record["expect_errors"]
    if not expected:
        assert lines == []
    elif record.get("expect_errors_mode") == "subset":
        missing = [text for text in expected if not any(text in line for line in lines)]
        assert not missing, f"missing {missing} in {lines}"
    else:
        assert len(lines) == len(expected), lines
        for text, line in zip(expected, lines, strict=True):
            assert text in line
