"""Reading an impact run's rows in SQL: counts, filters (the run may hold a million rows)."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Q, QuerySet, Sum

from policyeditor.engine import impact
from policyeditor.review.models import ImpactResult, ImpactRun

# `changed=True` is written as the bare column on SQLite ("WHERE changed"), which its planner
# cannot look up in the (run, changed) index; "changed IN (1)" it can.
CHANGED = Q(changed__in=[True])


def summarize(run: ImpactRun) -> dict[str, Any]:
    """Counts per operation of each result, mutated objects and audit annotations, in SQL."""
    results = run.results.all()
    summary: dict[str, Any] = {}
    for operation, prefix in (("CREATE", "create"), ("UPDATE", "update")):
        counts = dict(
            results.values_list(f"{prefix}_result")
            .annotate(n=Count("pk"))
            .values_list(f"{prefix}_result", "n")
        )
        summary[operation] = {result: counts.get(result, 0) for result in impact.RESULTS}
        summary[operation]["mutated"] = results.filter(**{f"{prefix}_mutated": True}).count()
    summary["annotations"] = results.aggregate(n=Sum("annotations"))["n"] or 0
    summary["changed"] = results.filter(CHANGED).count()
    summary["total"] = results.count()
    return summary


def filter_results(
    run: ImpactRun,
    *,
    result: str = "",
    operation: str = "",
    only_changed: bool = False,
    text: str = "",
    namespace: str = "",
    kind: str = "",
) -> QuerySet[ImpactResult]:
    """The run's rows matching a result (in one or any operation), a change, a name, a kind..."""
    prefixes = {"CREATE": ["create"], "UPDATE": ["update"]}.get(operation, ["create", "update"])
    rows = run.results.all()
    if result == "mutated":
        condition = Q()
        for prefix in prefixes:
            condition |= Q(**{f"{prefix}_mutated": True})
        rows = rows.filter(condition)
    elif result in impact.RESULTS and len(prefixes) == 1:
        rows = rows.filter(**{f"{prefixes[0]}_result": result})
    elif result in impact.RESULTS and (only_changed or namespace or kind):
        # Another indexed filter is the one lookup (SQLite would otherwise read its index once
        # for each side of the OR).
        rows = rows.filter(Q(create_result=result) | Q(update_result=result))
    elif result in impact.RESULTS:
        # The run goes into each side of the OR: SQLite then looks each side up in its own
        # (run, x_result) index and unites them. With the run outside the OR it walks all the
        # run's rows: 200 ms at a million rows, where a rare result now takes a few.
        rows = ImpactResult.objects.filter(
            Q(run=run, create_result=result) | Q(run=run, update_result=result)
        )
    if only_changed:
        rows = rows.filter(CHANGED)
    if namespace:
        rows = rows.filter(namespace=namespace)
    if kind:
        rows = rows.filter(kind=kind)
    # The table shows each object as "Kind namespace/name": every word of the search must be in
    # one of those, and "namespace/name" matches both parts.
    for word in text.split():
        if "/" in word:
            namespace_part, _, name_part = word.partition("/")
            rows = rows.filter(namespace__icontains=namespace_part, name__icontains=name_part)
        else:
            rows = rows.filter(
                Q(kind__icontains=word) | Q(namespace__icontains=word) | Q(name__icontains=word)
            )
    return rows
