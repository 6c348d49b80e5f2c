"""The revision diff is linear in practice, bounded, falls back to downloads, and is cached."""

from __future__ import annotations

import difflib
import random
import time

import pytest
from django.urls import reverse

from policyeditor.engine.manifests import linediff
from policyeditor.engine.manifests.linediff import DiffTooLarge, line_opcodes, unified
from policyeditor.engine.manifests.loading import dump_documents
from policyeditor.review import diff_cache
from policyeditor.review.diffs import diff_document
from tests.review.conftest import edit


def apply(a: list[str], b: list[str], codes) -> list[str]:
    """Rebuild the new side from the old one and the opcodes (equal lines must really be equal)."""
    out: list[str] = []
    for tag, i1, i2, j1, j2 in codes:
        if tag == "equal":
            assert a[i1:i2] == b[j1:j2]
            out += a[i1:i2]
        else:
            out += b[j1:j2]
    return out


@pytest.mark.parametrize("seed", range(30))
def test_the_opcodes_turn_the_old_lines_into_the_new_ones(seed):
    rng = random.Random(seed)
    a = [rng.choice("abcdefg") for _ in range(rng.randint(0, 60))]
    b = list(a)
    for _ in range(rng.randint(0, 20)):
        where = rng.randint(0, len(b))
        action = rng.choice(["insert", "delete", "change"])
        if action == "insert":
            b.insert(where, rng.choice("abcdefgxyz"))
        elif b and where < len(b):
            if action == "delete":
                del b[where]
            else:
                b[where] = rng.choice("xyz")
    codes = line_opcodes(a, b)
    assert apply(a, b, codes) == b
    assert [c[1] for c in codes[1:]] == [c[2] for c in codes[:-1]]  # contiguous on the old side


def test_the_unified_text_is_what_diff_u_prints_for_an_ordinary_edit():
    a = [f"line {n}" for n in range(40)]
    b = list(a)
    b[5] = "changed five"
    del b[20]
    b.insert(30, "new line")
    expected = list(difflib.unified_diff(a, b, "old", "new", lineterm="", n=3))
    assert unified(a, b, line_opcodes(a, b), fromfile="old", tofile="new", context=3) == expected


def test_a_10000_line_policy_with_every_second_line_changed_diffs_in_well_under_a_second():
    # The probe's attack: 17.7 s per page view, all of it in difflib.SequenceMatcher (about
    # 38 s on a loaded test machine for these lines). Dumping the YAML is not timed: it is linear.
    old = {"data": {f"key{n:05d}": f"value {n}" for n in range(10_000)}}
    new = {
        "data": {
            k: v + (" changed" if n % 2 == 0 else "")
            for n, (k, v) in enumerate(old["data"].items())
        }
    }
    a, b = dump_documents([old]).splitlines(), dump_documents([new]).splitlines()
    started = time.perf_counter()
    codes = line_opcodes(a, b)
    took = time.perf_counter() - started
    assert took < 1.0, took
    assert apply(a, b, codes) == b
    diff = diff_document(old, new, label="ConfigMap big")
    assert not diff.too_large
    assert diff.added == diff.removed == 5_000


def test_a_diff_past_the_work_limit_is_refused_not_computed(monkeypatch):
    a = [f"{n}" for n in range(1000)]
    b = [f"{n} changed" if n % 2 else f"{n}" for n in range(1000)]
    with pytest.raises(DiffTooLarge):
        line_opcodes(a, b, limit=100)
    monkeypatch.setattr(linediff, "WORK_LIMIT", 100)
    diff = diff_document({"a": a}, {"a": b}, label="big")
    assert diff.too_large and diff.changed and diff.rows == []


@pytest.mark.django_db
def test_a_diff_too_large_to_show_offers_both_revisions_for_download(
    draft, alice, client, monkeypatch
):
    edit(draft, alice, 9)
    monkeypatch.setattr(linediff, "WORK_LIMIT", 1)
    client.force_login(alice)
    html = client.get(reverse("review:revision", args=[draft.pk, 2])).content.decode()
    assert 'data-testid="diff-too-large"' in html
    assert reverse("review:revision_download", args=[draft.pk, 1]) in html
    assert reverse("review:revision_download", args=[draft.pk, 2]) in html


@pytest.mark.django_db
def test_a_revision_pair_is_diffed_once_however_often_the_page_is_viewed(
    draft, alice, client, monkeypatch
):
    edit(draft, alice, 9)
    calls: list[tuple] = []
    real = diff_cache.diff_revisions

    def counting(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(diff_cache, "diff_revisions", counting)
    client.force_login(alice)
    for _ in range(3):
        page = client.get(reverse("review:revision", args=[draft.pk, 2])).content.decode()
        assert "Changes since r1" in page
    assert len(calls) == 1
