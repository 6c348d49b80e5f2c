"""Reading an impact run's rows in SQL: counts, filters (the run may hold a million rows)."""

from __future__ import annotations

from typing import Any

from django.core.paginator import Paginator
from django.db.models import Count, Q, QuerySet, Sum
from django.utils.functional import cached_property

from policyeditor.engine import impact
from policyeditor.review.models import ImpactResult, ImpactRun

# `changed=True` is written as the bare column on SQLite ("WHERE changed"), which its planner
# cannot look up in the (run, changed) index; "changed IN (1)" it can.
CHANGED = Q(changed__in=[True])
# The summary's counts of rows with a result in either operation.
ANY_OPERATION = "any_operation"
PREFIXES = {"CREATE": "create", "UPDATE": "update"}
# What the result filter takes besides a result: mutated, rejected by the API server (allowed
# false) and newly denied (rejected now, admitted by the baseline or, without one, by no policy).
FILTERS = (*impact.RESULTS, "mutated", "rejected", "deniedNewly")
# Rejected in either operation; NULL (not known) is not. No index of its own: SQLite finds a
# page of these rows by walking the run's rows in order even when one exists (35 to 50 ms over
# a million rows when 500 are rejected: bench/README.md), and each index costs every insert.
REJECTED = Q(create_allowed=False) | Q(update_allowed=False)
# The summary's counts of the API server's answers per operation: rejected (denies and rejected
# errors), newly denied, and the errors it rejects and admits.
ANSWERS = ("rejected", "deniedNewly", "errorRejected", "errorAdmitted")
# Rows a caller reads from the start of filter_results unless it says otherwise: a first page.
FIRST_PAGE = 100
# Uniting the two result indexes and sorting the matches costs about this many times as much per
# match as walking the run's rows in order costs per row (0.9 against 0.25 us, a million rows:
# bench/bench_impact_rows.py).
UNITE_PER_WALK = 3.6


def denied_newly_in(prefix: str) -> Q:
    """Rows the API server rejects in this operation and admitted before: by the baseline, or
    with none (x_before "") by no policy, as impact.denied_newly reads the CLI's rows."""
    return Q(**{f"{prefix}_allowed": False}) & (
        Q(**{f"{prefix}_before": ""}) | Q(**{f"{prefix}_before_allowed": True})
    )


def _answers() -> dict[str, Count]:
    """The counts of the API server's answers per operation ("create_rejected"...) and in either
    ("rejected", "deniedNewly"), to take in the summary's one pass over the rows."""
    counts: dict[str, Count] = {}
    for prefix in PREFIXES.values():
        rejected, error = Q(**{f"{prefix}_allowed": False}), Q(**{f"{prefix}_result": "error"})
        admitted = Q(**{f"{prefix}_allowed": True})
        counts[f"{prefix}_rejected"] = Count("pk", filter=rejected)
        counts[f"{prefix}_deniedNewly"] = Count("pk", filter=denied_newly_in(prefix))
        counts[f"{prefix}_errorRejected"] = Count("pk", filter=error & rejected)
        counts[f"{prefix}_errorAdmitted"] = Count("pk", filter=error & admitted)
    counts["rejected"] = Count("pk", filter=REJECTED)
    counts["deniedNewly"] = Count(
        "pk", filter=denied_newly_in("create") | denied_newly_in("update")
    )
    return counts


def summarize(run: ImpactRun) -> dict[str, Any]:
    """Counts per operation of each result, mutated objects, the API server's answers and audit
    annotations, in SQL."""
    results = run.results.all()
    summary: dict[str, Any] = {}
    for operation, prefix in PREFIXES.items():
        counts = dict(
            results.values_list(f"{prefix}_result")
            .annotate(n=Count("pk"))
            .values_list(f"{prefix}_result", "n")
        )
        summary[operation] = {result: counts.get(result, 0) for result in impact.RESULTS}
        summary[operation]["mutated"] = results.filter(**{f"{prefix}_mutated": True}).count()
    # In either operation (the page's default filter counts from these, not the rows), the
    # annotations and the total: one pass over the run's rows.
    either = {
        result: Count("pk", filter=Q(create_result=result) | Q(update_result=result))
        for result in impact.RESULTS
    }
    either["mutated"] = Count("pk", filter=Q(create_mutated=True) | Q(update_mutated=True))
    answers = _answers()
    totals = results.aggregate(
        **either, **answers, sum_of_annotations=Sum("annotations"), rows=Count("pk")
    )
    summary[ANY_OPERATION] = {name: totals[name] for name in either}
    for operation, prefix in PREFIXES.items():
        for key in ANSWERS:
            summary[operation][key] = totals[f"{prefix}_{key}"]
    for key in ("rejected", "deniedNewly"):
        summary[ANY_OPERATION][key] = totals[key]
    # Where the CLI's counts have it (`counts.deniedNewly`).
    summary["deniedNewly"] = totals["deniedNewly"]
    summary["annotations"] = totals["sum_of_annotations"] or 0
    summary["changed"] = results.filter(CHANGED).count()
    summary["total"] = totals["rows"]
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
    rows_wanted: int = FIRST_PAGE,
) -> QuerySet[ImpactResult]:
    """The run's rows matching a result (in one or any operation), a change, a name, a kind...

    `rows_wanted`, how far into the rows the caller reads, only chooses how SQL finds them.
    """
    prefixes = [PREFIXES[operation]] if operation in PREFIXES else list(PREFIXES.values())
    rows = run.results.all()
    if result == "mutated":
        condition = Q()
        for prefix in prefixes:
            condition |= Q(**{f"{prefix}_mutated": True})
        rows = rows.filter(condition)
    elif result in ("rejected", "deniedNewly"):
        condition = Q()
        for prefix in prefixes:
            rejected = Q(**{f"{prefix}_allowed": False})
            condition |= rejected if result == "rejected" else denied_newly_in(prefix)
        rows = rows.filter(condition)
    elif result in impact.RESULTS and len(prefixes) == 1:
        rows = rows.filter(**{f"{prefixes[0]}_result": result})
    elif result in impact.RESULTS and (
        only_changed or namespace or kind or _walk_is_sooner(run, result, rows_wanted)
    ):
        # Another indexed filter is the one lookup (SQLite would otherwise read its index once
        # for each side of the OR); a common result is found soonest by walking the run's rows.
        rows = rows.filter(Q(create_result=result) | Q(update_result=result))
    elif result in impact.RESULTS:
        # A rare result: the run goes into each side of the OR, which SQLite then looks up in
        # the two (run, x_result) indexes and unites. With the run outside the OR it walks all
        # the run's rows: 250 ms at a million rows, where a rare result takes a few.
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


def _walk_is_sooner(run: ImpactRun, result: str, rows_wanted: int) -> bool:
    """Whether walking the run's rows in order meets `rows_wanted` rows with `result` in either
    operation sooner than uniting the two result indexes and sorting every match would."""
    summary = run.summary or {}
    total = summary.get("total")
    if not total:
        return True  # not finished: no counts to go by (and SQLite walks for the count)
    if ANY_OPERATION in summary:
        matches = summary[ANY_OPERATION][result]
    else:  # a run summarized before these counts: the sum of both operations' is an upper bound
        matches = summary["CREATE"][result] + summary["UPDATE"][result]
    if not matches:
        return False
    # min(total, rows_wanted * total / matches) < UNITE_PER_WALK * matches, in integers and a
    # comparison Python makes exactly: a page number of hundreds of digits must not overflow.
    unite = UNITE_PER_WALK * matches
    return bool(total < unite or rows_wanted * total < unite * matches)


def known_count(run: ImpactRun, **filters: Any) -> int | None:
    """The number of rows filter_results gives, where the run's summary holds it; else None."""
    summary = run.summary or {}
    # What filter_results ignores is no filter here either.
    result = filters.get("result") if filters.get("result") in FILTERS else ""
    operation = filters.get("operation") if filters.get("operation") in impact.OPERATIONS else ""
    only_changed = filters.get("only_changed", False)
    if not summary or any(filters.get(name) for name in ("text", "namespace", "kind")):
        return None
    if only_changed and result:
        return None
    if only_changed:
        return int(summary["changed"])
    if not result:
        return int(summary["total"])
    counts = summary.get(operation) if operation else summary.get(ANY_OPERATION)
    # A run summarized before the rejected counts were has none: they are counted in SQL.
    known = None if counts is None else counts.get(result)
    return None if known is None else int(known)


class RowPaginator(Paginator):
    """A Paginator over a run's rows whose count may be known already (`known_count`)."""

    def __init__(self, rows: QuerySet[ImpactResult], per_page: int, count: int | None) -> None:
        super().__init__(rows, per_page)
        self.known = count

    @cached_property
    def count(self) -> int:
        """The known count, else counted in SQL."""
        return self.known if self.known is not None else int(super().count)


def paginate_results(
    run: ImpactRun, per_page: int, page: int | str = 1, **filters: Any
) -> RowPaginator:
    """The run's rows matching `filters` (see filter_results) in pages, found the way that reaches
    `page` soonest; counts the summary holds are not counted again (a million rows take 60 to
    300 ms to count)."""
    try:
        number = max(1, int(page))
    except (TypeError, ValueError):  # what Paginator.get_page turns into its first page
        number = 1
    rows = filter_results(run, rows_wanted=number * per_page, **filters)
    return RowPaginator(rows, per_page, known_count(run, **filters))
