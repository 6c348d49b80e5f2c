"""A run's report as JSON lines: a header with the counts, then one line per object, streamed."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from policyeditor.review.impact_queries import summarize
from policyeditor.review.models import ImpactResult, ImpactRun


def run_dict(run: ImpactRun) -> dict[str, Any]:
    """The run's state and counts, as the API and the report give them."""
    return {
        "id": run.pk,
        "draft": run.draft_id,
        "revision": run.revision.number,
        "baseline": run.baseline.number if run.baseline else None,
        "defaulting": run.defaulting,
        "state": run.state,
        "error": run.error,
        "objects": run.total,
        "evaluated": run.position,
        "percent": run.percent,
        "namespacesMissing": run.missing_namespaces,
        "created": run.created.isoformat(),
        "finished": run.finished.isoformat() if run.finished else None,
        "summary": (run.summary or summarize(run)) if run.state == ImpactRun.State.DONE else None,
    }


def result_dict(row: ImpactResult) -> dict[str, Any]:
    """One object's row."""
    data: dict[str, Any] = {
        "position": row.position,
        "apiVersion": row.api_version,
        "kind": row.kind,
        "namespace": row.namespace,
        "name": row.name,
        "changed": row.changed,
        "annotations": row.annotations,
    }
    for operation, prefix in (("CREATE", "create"), ("UPDATE", "update")):
        data[operation] = {
            "result": getattr(row, f"{prefix}_result"),
            "before": getattr(row, f"{prefix}_before") or None,
            "mutated": getattr(row, f"{prefix}_mutated"),
            "message": getattr(row, f"{prefix}_message"),
        }
    return data


def report_lines(run: ImpactRun) -> Iterator[str]:
    """The header line, then every row in dump order (read in batches, never all at once)."""
    yield json.dumps(run_dict(run)) + "\n"
    for row in run.results.order_by("position").iterator(chunk_size=2000):
        yield json.dumps(result_dict(row)) + "\n"
