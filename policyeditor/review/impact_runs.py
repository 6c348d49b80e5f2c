"""Starting and advancing impact runs (stored between chunks so progress can be shown)."""

from __future__ import annotations

from django.db import transaction

from policyeditor.editor.crds import draft_layer
from policyeditor.editor.models import Draft, Revision
from policyeditor.review import audit, impact
from policyeditor.review.models import Action, ImpactRun
from policyeditor.review.permissions import can_view
from policyeditor.review.workflow import NotAllowed, WorkflowError, approved_revision

CHUNK = 1000  # objects per step: about a second of work with a baseline


def start_run(
    user,
    draft: Draft,
    revision: Revision,
    dump: str | bytes,
    namespaces: str | bytes = "",
    *,
    defaulting: bool = True,
) -> ImpactRun:
    """Load the dump (and optional namespace dump) and store a run that compares with the approved revision."""
    if not can_view(user, draft) or revision.draft_id != draft.pk:
        raise NotAllowed("You cannot analyse this draft.")
    try:
        objects = impact.load_dump(dump)
        extra = impact.load_dump(namespaces) if namespaces else []
    except impact.DumpError as error:
        raise WorkflowError(f"Cannot read the dump: {error}") from None
    if not objects:
        raise WorkflowError("The dump holds no objects.")
    found = impact.namespaces_of(objects + extra)
    baseline = approved_revision(draft)
    if baseline is not None and baseline.pk == revision.pk:
        baseline = None
    run = ImpactRun.objects.create(
        draft=draft,
        revision=revision,
        baseline=baseline,
        created_by=user,
        pending=objects,
        namespaces=found,
        total=len(objects),
        defaulting=defaulting,
    )
    audit.record(
        Action.IMPACT_ANALYSED,
        actor=user,
        draft=draft,
        revision_number=revision.number,
        detail={"objects": len(objects), "namespaces": len(found)},
    )
    return run


def step(run: ImpactRun, *, chunk: int = CHUNK) -> ImpactRun:
    """Evaluate the next chunk of objects; a finished run is returned as it is."""
    with transaction.atomic():
        run = ImpactRun.objects.select_for_update().get(pk=run.pk)
        if run.done:
            return run
        objects = run.pending[:chunk]
        baseline = run.baseline
        # The draft's CRDs (its pin or its team's schema library) type, prune and validate the
        # custom resources of the dump, as they do in Try it.
        with draft_layer(run.draft):
            rows = impact.evaluate_chunk(
                run.revision.documents,
                baseline.documents if baseline is not None else None,
                objects,
                run.namespaces,
                version=run.revision.kubernetes_version,
                baseline_version=baseline.kubernetes_version if baseline is not None else None,
                defaulting=run.defaulting,
            )
        run.rows = run.rows + rows
        run.pending = run.pending[chunk:]
        run.position += len(objects)
        run.done = not run.pending
        if run.done:
            run.namespaces = {}
        run.save(update_fields=["rows", "pending", "position", "done", "namespaces"])
    return run


def run_to_end(run: ImpactRun) -> ImpactRun:
    """Evaluate every remaining chunk (the API and tests do not need progress)."""
    while not run.done:
        run = step(run)
    return run
