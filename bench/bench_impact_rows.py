"""Benchmark 10: the rows of an impact run of a million objects, filtered, on SQLite.

One finished run holds 1,000,000 result rows (inserted as a chunk task inserts them, with a
spread of results like a real cluster's: most allowed, a tenth denied, a few errors, no skips,
500 namespaces, five kinds). The run's page (`/reviews/drafts/<pk>/impact/<run>/`) is requested
through Django's test client with each filter the page offers, the filters taking turns request
by request: the median time of the first page (its count included) and of a deep page.

Side by side, the filter "a result in any operation" with its count, as `paginate_results` reads
them now (a rare result looked up in the two result indexes, a common one found by walking the
run's rows in order, the count from the run's summary) against the way it did before this
benchmark (the run's rows walked for both, the count in SQL).
Goal: every filter but the text search loads its first page in at most 200 ms.
"""

from __future__ import annotations

import random
import statistics
import time

import django_env
from bench_impact import BINDING, POLICY
from common import Goal

ROWS = 1_000_000
SAMPLES = 7
KINDS = ("Deployment", "Pod", "ConfigMap", "Service", "ReplicaSet")


def _result(rnd: random.Random) -> str:
    x = rnd.random()
    return "allow" if x < 0.85 else "deny" if x < 0.95 else "warn" if x < 0.98 else "error"


def _allowed(result: str, i: int) -> bool:
    """The API server's answer: a deny rejected, every other error too (failurePolicy Fail)."""
    return result not in ("deny", "error") or (result == "error" and i % 2 == 1)


def _run_of_a_million(user):
    """A finished run of ROWS rows, inserted in chunks of 10,000 as `insert_results` does."""
    from django.core.files.base import ContentFile
    from django.db import transaction

    from policyeditor.editor.services import create_draft
    from policyeditor.review.impact_queries import summarize
    from policyeditor.review.impact_store import insert_results
    from policyeditor.review.models import ImpactRun

    draft = create_draft(user, [POLICY, BINDING], name="bench-rows", kubernetes_version="1.34")
    run = ImpactRun(
        draft=draft,
        revision=draft.revisions.get(number=1),
        created_by=user,
        state=ImpactRun.State.DONE,
        total=ROWS,
        position=ROWS,
    )
    run.dump.save("bench-rows.json", ContentFile(b"{}"), save=False)
    run.save()
    rnd = random.Random(10)
    with transaction.atomic():
        values = []
        for i in range(ROWS):
            create = _result(rnd)
            update = create if rnd.random() < 0.9 else _result(rnd)
            namespace, kind = f"ns-{rnd.randrange(500)}", rnd.choice(KINDS)
            mutated, changed = rnd.random() < 0.03, rnd.random() < 0.05
            values.append(
                (run.pk, i, "apps/v1", kind, namespace, f"obj-{i}", create, update, "", "")
                + (_allowed(create, i), _allowed(update, i), None, None)
                + (mutated, False, 0, changed, "", "")
            )
            if len(values) == 10_000:
                insert_results(values)
                values = []
    run.summary = summarize(run)
    run.save(update_fields=["summary"])
    return draft, run


def _any_operation_before(run, result: str):
    """The filter as filter_results wrote it before: the run outside the OR."""
    from django.db.models import Q

    return run.results.filter(Q(create_result=result) | Q(update_result=result))


def _first_page(paginator) -> float:
    """Seconds for the first page of `paginator` and its count."""
    start = time.perf_counter()
    page = paginator.get_page(1)
    assert page.paginator.count >= len(list(page))
    return time.perf_counter() - start


def run() -> list[Goal]:
    """Measure and print benchmark 10."""
    django_env.setup()
    from django.core.paginator import Paginator

    from policyeditor.review.impact_queries import paginate_results

    client, user = django_env.client_for("bench-rows")
    started = time.perf_counter()
    draft, impact_run = _run_of_a_million(user)
    print(f"{ROWS:,} rows inserted in {time.perf_counter() - started:.1f}s")
    base = f"/reviews/drafts/{draft.pk}/impact/{impact_run.pk}/"
    indexed = {
        "no filter": "",
        "allow, any operation": "result=allow",
        "deny, any operation": "result=deny",
        "error, any operation": "result=error",
        "skip, any operation (none)": "result=skip",
        "deny, CREATE": "result=deny&operation=CREATE",
        "mutated, any operation": "result=mutated",
        "changed only": "changed=1",
        "error, any operation, changed": "result=error&changed=1",
        # No index of their own: the run's rows walked in order.
        "rejected, any operation": "result=rejected",
        "newly denied, UPDATE": "result=deniedNewly&operation=UPDATE",
    }
    searches = {"text: a namespace": "q=ns-42", "text: one name": "q=obj-99999"}
    urls = {name: f"{base}?{query}" for name, query in {**indexed, **searches}.items()}
    urls["no filter, page 5,000"] = f"{base}?page=5000"
    urls["deny, any operation, page 1,000"] = f"{base}?result=deny&page=1000"
    for url in urls.values():
        client.get(url)  # warm: templates, SQLite's page cache
    samples: dict[str, list[float]] = {name: [] for name in urls}
    for _ in range(SAMPLES):
        for name, url in urls.items():  # the filters take turns, request by request
            samples[name].append(django_env.timed_get(client, url))
    medians = {name: statistics.median(values) for name, values in samples.items()}
    for name, seconds in medians.items():
        print(f"page with {name}: {seconds * 1e3:.1f} ms")

    for result in ("allow", "deny", "error", "skip"):
        before, now = [], []
        for _ in range(SAMPLES):  # the two take turns
            old = _any_operation_before(impact_run, result).order_by("position")
            before.append(_first_page(Paginator(old, 100)))
            now.append(_first_page(paginate_results(impact_run, 100, result=result)))
        print(
            f"{result} in any operation, count and first page: as before (the run outside the OR, "
            f"counted in SQL) {statistics.median(before) * 1e3:.1f} ms, now "
            f"{statistics.median(now) * 1e3:.1f} ms "
            f"({statistics.median(before) / statistics.median(now):.1f}x)"
        )
    slowest = max(medians[name] for name in indexed)
    return [
        Goal(
            f"10 impact run of {ROWS:,} rows: slowest filtered first page (text search aside)",
            slowest * 1e3,
            200,
            " ms",
        )
    ]
