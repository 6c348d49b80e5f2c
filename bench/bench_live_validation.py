"""Benchmark 3: the editor's live validate-and-preview request through Django's test client.

The HTMX endpoint (`POST /drafts/<pk>/validate/`) parses the posted form, validates every
document as the API server would (compiling the CEL), collects type-check warnings and renders
the status fragment with the YAML preview. Cold = the compile cache emptied before the request;
warm = the same request repeated (compile cache hit). The bare engine work inside it is
load_documents of the posted YAML + validate_documents + warnings_for + dump_documents, timed
in the same run.
Goal: warm p95 <= 2x the bare engine work (its median).
"""

from __future__ import annotations

import time
from urllib.parse import urlencode

import django_env
from common import Goal, percentiles
from fixtures import binding, policy

COLD_SAMPLES = 15
WARM_SAMPLES = 150


def _post_data() -> dict:
    from policyeditor.engine.manifests.loading import dump_documents

    return {
        "docs": ["d1", "d2"],
        "d1:yaml": dump_documents([policy()]),
        "d2:yaml": dump_documents([binding()]),
        "kubernetes_version": "1.37",
    }


def _samples(fn, count: int, before=None) -> list[float]:
    samples = []
    for _ in range(count):
        if before is not None:
            before()
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return samples


def run() -> list[Goal]:
    """Measure and print benchmark 3."""
    django_env.setup()
    from policyeditor.editor.models import Draft
    from policyeditor.engine.cel import compiler
    from policyeditor.engine.manifests.loading import dump_documents, load_documents
    from policyeditor.engine.validation.documents import validate_documents, warnings_for

    client, user = django_env.client_for("bench-live")
    docs = [policy(), binding()]
    draft = Draft.objects.create(name="deployment-standards", owner=user, documents=docs)
    url = f"/drafts/{draft.pk}/validate/"
    data = _post_data()

    # Form-encoded, as htmx posts the editor form (the test client's default is multipart).
    body = urlencode(data, doseq=True)

    def request() -> None:
        response = client.post(
            url, body, content_type="application/x-www-form-urlencoded", HTTP_HX_REQUEST="true"
        )
        assert response.status_code == 200, response.status_code
        assert b"issue-error" not in response.content, response.content[:2000]

    def bare() -> None:
        loaded = [load_documents(data[key])[0] for key in ("d1:yaml", "d2:yaml")]
        assert loaded == docs
        validate_documents(docs, version="1.37")
        for doc in docs:
            warnings_for(doc, version="1.37")
        dump_documents(docs)

    request()  # imports, template loading, URL resolution: not what a user waits for
    queries = django_env.count_queries(request)
    cold = _samples(request, COLD_SAMPLES, before=compiler.clear_cache)
    warm: list[float] = []
    engine: list[float] = []
    for _ in range(5):  # interleaved rounds, so drift hits both alike
        warm += _samples(request, WARM_SAMPLES // 5)
        engine += _samples(bare, WARM_SAMPLES // 5)
    cold_p, warm_p, bare_p = percentiles(cold), percentiles(warm), percentiles(engine)
    ms = 1e3
    print(
        f"cold: median {cold_p['p50'] * ms:.1f} ms, p95 {cold_p['p95'] * ms:.1f} ms "
        f"({COLD_SAMPLES} requests, compile cache emptied before each)"
    )
    print(
        f"warm: median {warm_p['p50'] * ms:.1f} ms, p95 {warm_p['p95'] * ms:.1f} ms "
        f"({WARM_SAMPLES} requests)"
    )
    print(
        f"bare engine work (YAML load + validate + warnings + YAML dump): median {bare_p['p50'] * ms:.2f} ms, "
        f"p95 {bare_p['p95'] * ms:.2f} ms"
    )
    print(f"database queries per request: {queries}")
    return [
        Goal("3 live validation warm p95 / bare engine work", warm_p["p95"] / bare_p["p50"], 2.0)
    ]
