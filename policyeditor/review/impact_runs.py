"""Starting, cancelling and reading impact runs; the work itself runs on the task queue (impact_tasks)."""

from __future__ import annotations

from typing import IO, Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.files import File
from django.core.files.base import ContentFile
from django.db import transaction
from django.utils import timezone

from policyeditor.editor.models import Draft, Revision
from policyeditor.engine import validation
from policyeditor.engine.objects import has_policy, is_admission
from policyeditor.review import audit, impact_tasks
from policyeditor.review.impact_queries import (
    FILTERS,
    filter_results,
    paginate_results,
    summarize,
)
from policyeditor.review.models import Action, ImpactRun
from policyeditor.review.permissions import can_cancel_impact, can_start_impact
from policyeditor.review.workflow import NotAllowed, WorkflowError, approved_revision

__all__ = [
    "CANCEL_REFUSED",
    "FILTERS",
    "START_REFUSED",
    "at_limit",
    "cancel_run",
    "check_can_start",
    "check_policies",
    "filter_results",
    "limit_message",
    "paginate_results",
    "policy_problems",
    "refusals",
    "requeue_stale",
    "start_run",
    "summarize",
]

DEFAULT_RUNS_PER_USER = 2
START_REFUSED = "Only authors of this draft start impact runs."
CANCEL_REFUSED = "Only the run's creator, the draft's owner, a team admin or staff can cancel it."
ACTIVE = impact_tasks.ACTIVE


def runs_per_user() -> int:
    """How many runs one user may have going at once (POLICYEDITOR_IMPACT_RUNS_PER_USER)."""
    return int(getattr(settings, "POLICYEDITOR_IMPACT_RUNS_PER_USER", DEFAULT_RUNS_PER_USER))


def at_limit(user: Any) -> bool:
    """True when the user already has as many runs queued or going as one user may have."""
    limit = runs_per_user()
    return bool(limit) and (
        ImpactRun.objects.filter(created_by=user, state__in=ACTIVE).count() >= limit
    )


def limit_message() -> str:
    """What a user at the limit of runs is told."""
    limit = runs_per_user()
    return (
        f"You already have {limit} impact run{'s' if limit != 1 else ''} going, the most one "
        "user may have at once. Wait for one to finish or cancel it."
    )


def _as_file(data: IO[bytes] | bytes | str, name: str) -> File:
    if isinstance(data, str):
        data = data.encode()
    if isinstance(data, bytes):
        return ContentFile(data, name=name)
    if isinstance(data, File):
        # An upload Django streamed to a temporary file: storage moves that file into place (a
        # rename on the same file system) instead of copying it, 4 s of a 1 GiB upload.
        return data
    return File(data, name=name)


def policy_problems(revision: Revision, *, baseline: bool = False) -> list[str]:
    """Why the API server would refuse the revision's policies and bindings ([]: it takes them),
    each document's errors in its own words (`status_message`), as `policyeditor impact` refuses."""
    documents = revision.documents
    version = revision.kubernetes_version
    which = f"the approved r{revision.number} (the baseline)" if baseline else f"r{revision.number}"
    if not has_policy(documents):
        return [
            f"{which.capitalize()} holds no ValidatingAdmissionPolicy or MutatingAdmissionPolicy."
        ]
    admission = [doc for doc in documents if is_admission(doc)]
    errors: dict[int, list[Any]] = {}
    for index, error in validation.validate_documents(admission, version=version):
        errors.setdefault(index, []).append(error)
    if not errors:
        return []
    head = f"The API server (Kubernetes {version}) would refuse {which}: fix it before analysing."
    return [head] + [validation.status_message(admission[i], found) for i, found in errors.items()]


def refusals(revision: Revision) -> list[str]:
    """policy_problems of a run's revision, else of its baseline (the approved revision)."""
    baseline = approved_revision(revision.draft)
    problems = policy_problems(revision)
    if not problems and baseline is not None and baseline.pk != revision.pk:
        problems = policy_problems(baseline, baseline=True)
    return problems


def check_policies(revision: Revision) -> None:
    """Raise WorkflowError when the run's revision, or its baseline, is not valid to apply."""
    if problems := refusals(revision):
        raise WorkflowError(" ".join(problems))


def check_can_start(user: Any, draft: Draft) -> None:
    """Raise NotAllowed unless the user may start impact runs on the draft."""
    if not can_start_impact(user, draft):
        raise NotAllowed(START_REFUSED)


def start_run(
    user: Any,
    draft: Draft,
    revision: Revision,
    dump: IO[bytes] | bytes | str,
    namespaces: IO[bytes] | bytes | str | None = None,
    *,
    defaulting: bool = True,
) -> ImpactRun:
    """Store the dump (once, as given) and queue the run; it compares with the approved revision."""
    check_can_start(user, draft)
    if revision.draft_id != draft.pk:
        raise NotAllowed(START_REFUSED)
    if at_limit(user):
        raise WorkflowError(limit_message())
    check_policies(revision)
    baseline = approved_revision(draft)
    if baseline is not None and baseline.pk == revision.pk:
        baseline = None
    run = ImpactRun(draft=draft, revision=revision, created_by=user, defaulting=defaulting)
    run.baseline = baseline
    try:
        run.dump.save("dump", _as_file(dump, "dump"), save=False)
        if namespaces:
            run.namespaces_dump.save("namespaces", _as_file(namespaces, "namespaces"), save=False)
        with transaction.atomic():
            # Checked again where it cannot race: a CI job starting several runs at once with
            # one token would otherwise get them all past the check above. The user's row lock
            # makes one user's starts take turns (PostgreSQL; SQLite's IMMEDIATE transactions
            # take turns anyway), so each counts the runs the others saved.
            get_user_model().objects.select_for_update().filter(pk=user.pk).first()
            if at_limit(user):
                raise WorkflowError(limit_message())
            run.save()
            audit.record(
                Action.IMPACT_ANALYSED,
                actor=user,
                draft=draft,
                revision_number=revision.number,
                detail={"run": run.pk, "bytes": run.dump.size},
            )
            impact_tasks.prepare_run.enqueue(run.pk)
            impact_tasks.watch_later(run.pk)
    except BaseException:
        # No run holds the files just stored: they go, or they would stay for ever.
        if run.dump:
            run.dump.delete(save=False)
        if run.namespaces_dump:
            run.namespaces_dump.delete(save=False)
        raise
    return run


def cancel_run(user: Any, run: ImpactRun) -> ImpactRun:
    """Stop a run: chunk tasks not started do nothing, running ones stop after their batch."""
    if not can_cancel_impact(user, run):
        raise NotAllowed(CANCEL_REFUSED)
    with transaction.atomic():
        cancelled = ImpactRun.objects.filter(pk=run.pk, state__in=ACTIVE).update(
            state=ImpactRun.State.CANCELLED, finished=timezone.now()
        )
        if cancelled:  # a run that had already stopped was not cancelled by this call
            # Its rows are final now (a chunk storing later finds the run stopped): their counts
            # are taken once, not at every view of the partial table.
            ImpactRun.objects.filter(pk=run.pk).update(summary=summarize(run))
        run.refresh_from_db()
        if cancelled:
            audit.record(
                Action.IMPACT_CANCELLED,
                actor=user,
                draft=run.draft,
                revision_number=run.revision.number,
                detail={"run": run.pk, "evaluated": run.position, "objects": run.total},
            )
    return run


def requeue_stale(run: ImpactRun) -> int:
    """Give chunks whose worker stopped renewing its lease to new tasks (see impact_tasks)."""
    return impact_tasks.requeue_stale(run.pk)
