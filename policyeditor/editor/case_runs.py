"""Engine work of the editor run in the isolation pool: validation, Try-it and saved test cases."""

# Nothing here imports Django: these functions run in engine worker processes (see
# policyeditor.engine.isolation) and take and return picklable values. Saved cases run as the
# very bundle export writes (policy.yaml plus a *.policytest.yaml) through `engine.suites.run`, so
# the editor, the review page and `policyeditor test` cannot disagree.

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from policyeditor.editor import live
from policyeditor.editor.formdata import ParsedForm
from policyeditor.engine import schemas


def validate_form(
    parsed: ParsedForm, version: str, static: bool = False, crds: list[dict] | None = None
) -> live.Report:
    """live.validate, as a worker call, with the draft's CRDs (its team's schema library)."""
    with schemas.crds_in_force(crds or []):
        return live.validate(parsed, version, static)


def try_form(
    documents: list[dict], inputs: live.TryInputs, version: str, crds: list[dict] | None = None
) -> live.TryOutcome:
    """live.try_it, as a worker call, with the draft's CRDs."""
    with schemas.crds_in_force(crds or []):
        return live.try_it(documents, inputs, version)


def run_suite_files(files: dict[str, str]) -> list[dict[str, Any]]:
    """Write the bundle's files to a temporary directory and run them; one dict per case."""
    return _run_files(files, coverage=False)["runs"]


def run_suite_files_with_coverage(files: dict[str, str]) -> dict[str, Any]:
    """run_suite_files, and the coverage report: {"runs": [...], "coverage": {"policies": ...}}."""
    return _run_files(files, coverage=True)


def _run_files(files: dict[str, str], *, coverage: bool) -> dict[str, Any]:
    from policyeditor.engine import suites

    with tempfile.TemporaryDirectory(prefix="policyeditor-editor-tests-") as tmp:
        for filename, text in files.items():
            # Only plain names: the bundle is built by us, but a path must never leave `tmp`.
            (Path(tmp) / Path(filename).name).write_text(text, encoding="utf-8")
        report = suites.run([tmp], coverage=coverage)
    runs = [
        {
            "name": result.case.name,
            "passed": bool(result.passed),
            "result": (result.outcome or {}).get("result"),
            "message": (result.outcome or {}).get("message") or "",
            "failures": [str(f) for f in result.failures],
            "vacuous": result.vacuous if result.passed else "",
        }
        for result in report.results
    ]
    runs += [
        {
            "name": "(suite)",
            "passed": False,
            "result": None,
            "message": "",
            "failures": [e.message],
            "vacuous": "",
        }
        for e in report.errors
    ]
    data = report.coverage.to_dict() if report.coverage is not None else {"policies": []}
    return {"runs": runs, "coverage": data}
