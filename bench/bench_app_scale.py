"""Benchmark 5: the app at scale: drafts list, draft page and review page.

Three SQLite databases, copies of one base (a user, a draft with 100 revisions, one with 1), hold
10, 1,000 and 10,000 drafts of that user (bulk inserted). The three pages are requested through
Django's test client in every database, the sizes taking turns request by request (the default
connection is pointed at each file in turn), so that the ratios are measured side by side: SQL
statements per request (must not grow with the data: no N+1) and the median time. The review
page is also compared between the draft with 1 revision and the one with 100, in turns too.
Goals: the same query count at every size; median time at 10,000 drafts <= 1.5x that at 10.
"""

from __future__ import annotations

import sqlite3
import statistics
from pathlib import Path

import django_env
from common import Goal
from fixtures import binding, policy

SIZES = (10, 1_000, 10_000)
REVISIONS = 100
SAMPLES = 25


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


def _use(path: str) -> None:
    """Point the default connection at the SQLite file `path` (it reconnects on the next query)."""
    from django.db import connection

    connection.close()
    connection.settings_dict["NAME"] = path


def _copy(source: str, target: str) -> None:
    """A consistent copy of the SQLite database source (WAL included) at target."""
    with sqlite3.connect(source) as src, sqlite3.connect(target) as dst:
        src.backup(dst)
    src.close()
    dst.close()


def run() -> list[Goal]:
    """Measure and print benchmark 5."""
    django_env.setup()
    from django.db import connection

    from policyeditor.editor.models import Draft

    client, user = django_env.client_for("bench-scale")  # the session row is in the base
    main = _with_revisions(user, "bench-main", REVISIONS)
    single = _with_revisions(user, "bench-single", 1)
    base = connection.settings_dict["NAME"]
    _use(base)
    databases = {}
    for size in SIZES:
        databases[size] = str(Path(base).with_name(f"scale-{size}.sqlite3"))
        _copy(base, databases[size])
        _use(databases[size])
        _grow(user, size)
    pages = {
        "drafts list": "/drafts/",
        "draft page": f"/drafts/{main.pk}/",
        "review page": f"/reviews/drafts/{main.pk}/r/{REVISIONS}/",
    }
    one_url = f"/reviews/drafts/{single.pk}/r/1/"
    queries: dict[tuple[int, str], int] = {}
    for size in SIZES:
        _use(databases[size])
        # The requests below read this file, not another size's.
        assert Draft.objects.filter(owner=user).count() == size, size
        for name, url in pages.items():
            client.get(url)  # warm: templates, compile cache
            queries[size, name] = django_env.count_queries(lambda url=url: client.get(url))
    _use(databases[SIZES[-1]])
    client.get(one_url)
    one_queries = django_env.count_queries(lambda: client.get(one_url))

    samples: dict[tuple[int, str], list[float]] = {key: [] for key in queries}
    revision_samples: dict[int, list[float]] = {1: [], REVISIONS: []}
    for _ in range(SAMPLES):
        for size in SIZES:  # the sizes take turns, request by request
            _use(databases[size])
            for name, url in pages.items():
                samples[size, name].append(django_env.timed_get(client, url))
            if size == SIZES[-1]:
                revision_samples[1].append(django_env.timed_get(client, one_url))
                revision_samples[REVISIONS].append(
                    django_env.timed_get(client, pages["review page"])
                )
    _use(base)
    times = {key: statistics.median(values) for key, values in samples.items()}
    for size in SIZES:
        row = ", ".join(
            f"{name} {times[size, name] * 1e3:.1f} ms / {queries[size, name]} queries"
            for name in pages
        )
        print(f"{size:>6} drafts: {row}")
    one_time = statistics.median(revision_samples[1])
    many_time = statistics.median(revision_samples[REVISIONS])
    print(
        f"review page, 1 revision: {one_time * 1e3:.1f} ms / {one_queries} queries; "
        f"{REVISIONS} revisions: {many_time * 1e3:.1f} ms / "
        f"{queries[SIZES[-1], 'review page']} queries ({SAMPLES} requests each, in turns)"
    )
    goals = []
    small, large = SIZES[0], SIZES[-1]
    for name in pages:
        counts = [queries[size, name] for size in SIZES]
        goals.append(
            Goal(
                f"5 {name}: extra queries at 10,000 vs 10 drafts",
                max(counts) - min(counts),
                0,
                unit=" queries",
            )
        )
        goals.append(
            Goal(f"5 {name}: time 10,000 / 10 drafts", times[large, name] / times[small, name], 1.5)
        )
    goals.append(
        Goal(
            f"5 review page: extra queries with {REVISIONS} revisions vs 1",
            queries[large, "review page"] - one_queries,
            0,
            unit=" queries",
        )
    )
    goals.append(Goal(f"5 review page: time {REVISIONS} / 1 revisions", many_time / one_time, 1.5))
    return goals
