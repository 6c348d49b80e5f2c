"""Benchmark 5: the app at scale: drafts list, draft page and review page.

A throwaway SQLite database holds 10, then 1,000, then 10,000 drafts of one user (bulk inserted),
one of them with 100 revisions. At each size the three pages are requested through Django's test
client: SQL statements per request (must not grow with the data: no N+1) and the median time.
The review page is also compared between a draft with 1 revision and the one with 100.
Goals: the same query count at every size; median time at 10,000 drafts <= 1.5x that at 10.
"""

from __future__ import annotations

import statistics
import time

import django_env
from common import Goal
from fixtures import binding, policy

SIZES = (10, 1_000, 10_000)
REVISIONS = 100
SAMPLES = 15


def _median_seconds(client, url: str) -> float:
    samples = []
    for _ in range(SAMPLES):
        start = time.perf_counter()
        response = client.get(url)
        samples.append(time.perf_counter() - start)
        assert response.status_code == 200, (url, response.status_code)
    return statistics.median(samples)


def _grow(user, total: int) -> None:
    from policyeditor.editor.models import Draft

    missing = total - Draft.objects.filter(owner=user).count()
    docs = [policy(), binding()]
    Draft.objects.bulk_create(
        [
            Draft(name=f"bench-draft-{i}", owner=user, documents=docs, description="benchmark")
            for i in range(missing)
        ],
        batch_size=1000,
    )


def _with_revisions(user, name: str, count: int):
    from policyeditor.editor.models import Draft, Revision

    docs = [policy(), binding()]
    draft = Draft.objects.create(name=name, owner=user, documents=docs, revision=count)
    revisions = []
    for number in range(1, count + 1):
        changed = policy()
        changed["spec"]["validations"][0]["expression"] = f"variables.replicas <= {number}"
        revisions.append(
            Revision(draft=draft, number=number, documents=[changed, binding()], author=user)
        )
    Revision.objects.bulk_create(revisions)
    return draft


def run() -> list[Goal]:
    """Measure and print benchmark 5."""
    django_env.setup()
    client, user = django_env.client_for("bench-scale")
    main = _with_revisions(user, "bench-main", REVISIONS)
    single = _with_revisions(user, "bench-single", 1)
    pages = {
        "drafts list": "/drafts/",
        "draft page": f"/drafts/{main.pk}/",
        "review page": f"/reviews/drafts/{main.pk}/r/{REVISIONS}/",
    }
    queries: dict[str, list[int]] = {name: [] for name in pages}
    times: dict[str, list[float]] = {name: [] for name in pages}
    for size in SIZES:
        _grow(user, size)
        for name, url in pages.items():
            client.get(url)  # warm: templates, compile cache
            queries[name].append(django_env.count_queries(lambda url=url: client.get(url)))
            times[name].append(_median_seconds(client, url))
        row = ", ".join(
            f"{name} {times[name][-1] * 1e3:.1f} ms / {queries[name][-1]} queries" for name in pages
        )
        print(f"{size:>6} drafts: {row}")
    one_url = f"/reviews/drafts/{single.pk}/r/1/"
    client.get(one_url)
    one_queries = django_env.count_queries(lambda: client.get(one_url))
    one_time, many_time = (
        _median_seconds(client, one_url),
        _median_seconds(client, pages["review page"]),
    )
    print(
        f"review page, 1 revision: {one_time * 1e3:.1f} ms / {one_queries} queries; "
        f"{REVISIONS} revisions: {many_time * 1e3:.1f} ms / {queries['review page'][-1]} queries"
    )
    goals = []
    for name in pages:
        growth = max(queries[name]) - min(queries[name])
        goals.append(
            Goal(f"5 {name}: extra queries at 10,000 vs 10 drafts", growth, 0, unit=" queries")
        )
        goals.append(
            Goal(f"5 {name}: time 10,000 / 10 drafts", times[name][-1] / times[name][0], 1.5)
        )
    goals.append(
        Goal(
            f"5 review page: extra queries with {REVISIONS} revisions vs 1",
            queries["review page"][-1] - one_queries,
            0,
            unit=" queries",
        )
    )
    goals.append(Goal(f"5 review page: time {REVISIONS} / 1 revisions", many_time / one_time, 1.5))
    return goals
