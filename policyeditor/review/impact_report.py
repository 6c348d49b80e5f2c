"""A run's report as JSON lines: a header with the counts, then one line per object, streamed."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from policyeditor.engine import impact
from policyeditor.review.impact_queries import PREFIXES, summarize
from policyeditor.review.models import ImpactResult, ImpactRun


@dataclass(frozen=True)
class Side:
    """One operation of a row as the page, the API and the report read it."""

    result: str
    # The API server's answer; None where it is not known (rows stored before it was).
    allowed: bool | None
    before: str  # the baseline's result; "" without a baseline
    before_allowed: bool | None
    mutated: bool
    message: str

    @property
    def label(self) -> str:
        """The result, and for an error whether the API server rejects or admits the request."""
        return impact.label(self.result, self.allowed)

    @property
    def was(self) -> str:
        """The baseline's label where it reads otherwise than this one, else ""."""
        before = impact.label(self.before, self.before_allowed) if self.before else ""
        return before if before != self.label else ""

    @property
    def note(self) -> str:
        """What an error's label leaves unsaid about the API server's answer (a tooltip)."""
        if self.result != "error":
            return ""
        if self.allowed is None:
            return "Not recorded: the run stored this row before answers were. Run it again."
        if self.allowed:
            return (
                "allowed: true. The API server admits the request "
                "(failurePolicy Ignore, or validationActions without Deny)."
            )
        return (
            "allowed: false. The API server rejects the request "
            "(failurePolicy Fail, or the evaluation failed or ran out of time)."
        )

    @property
    def denied_newly(self) -> bool:
        """Rejected now and admitted before (no baseline: no policy admitted every request),
        as impact.denied_newly and impact_queries.denied_newly_in decide it."""
        return self.allowed is False and (not self.before or self.before_allowed is True)


def side(row: ImpactResult, operation: str) -> Side:
    """One operation (CREATE or UPDATE) of a row."""
    prefix = PREFIXES[operation]
    return Side(
        getattr(row, f"{prefix}_result"),
        getattr(row, f"{prefix}_allowed"),
        getattr(row, f"{prefix}_before"),
        getattr(row, f"{prefix}_before_allowed"),
        getattr(row, f"{prefix}_mutated"),
        getattr(row, f"{prefix}_message"),
    )


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
        "unboundPolicies": unbound_policies(run),
        "created": run.created.isoformat(),
        "finished": run.finished.isoformat() if run.finished else None,
        "summary": (run.summary or summarize(run)) if run.state == ImpactRun.State.DONE else None,
    }


def unbound_policies(run: ImpactRun) -> dict[str, list[dict[str, str]]]:
    """The policies of the revision and of the baseline that no binding references."""
    # Read from the revisions, which never change: the run evaluated these same documents.
    baseline = run.baseline
    return {
        "revision": impact.unbound_policies(
            run.revision.documents, run.revision.kubernetes_version
        ),
        "baseline": (
            impact.unbound_policies(baseline.documents, baseline.kubernetes_version)
            if baseline
            else []
        ),
    }


def unbound_warnings(run: ImpactRun) -> list[str]:
    """The run page's warnings of unbound policies (none when every policy is bound)."""
    unbound = unbound_policies(run)
    baseline = f"the approved r{run.baseline.number}" if run.baseline else ""
    sides = (("revision", f"r{run.revision.number}"), ("baseline", baseline))
    return [w for side, where in sides if (w := impact.unbound_warning(unbound[side], where))]


def result_dict(row: ImpactResult) -> dict[str, Any]:
    """One object's row."""
    sides = {operation: side(row, operation) for operation in PREFIXES}
    data: dict[str, Any] = {
        "position": row.position,
        "apiVersion": row.api_version,
        "kind": row.kind,
        "namespace": row.namespace,
        "name": row.name,
        "changed": row.changed,
        "deniedNewly": any(one.denied_newly for one in sides.values()),
        "annotations": row.annotations,
    }
    for operation, one in sides.items():
        data[operation] = {
            "result": one.result,
            "allowed": one.allowed,
            "before": one.before or None,
            "allowedBefore": one.before_allowed,
            "mutated": one.mutated,
            "message": one.message,
        }
    return data


def report_lines(run: ImpactRun) -> Iterator[str]:
    """The header line, then every row in dump order (read in batches, never all at once)."""
    yield json.dumps(run_dict(run)) + "\n"
    for row in run.results.order_by("position").iterator(chunk_size=2000):
        yield json.dumps(result_dict(row)) + "\n"
