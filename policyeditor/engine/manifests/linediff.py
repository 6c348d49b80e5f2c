"""A line diff that is linear in practice (patience anchors), with a bound on the work it may do."""

# difflib.SequenceMatcher is quadratic on the lines between its matches: a 10,000-line policy with
# every second line changed took 17.7 s per review page (issue 20). Patience diff (Bram Cohen's,
# as git's --patience) anchors on lines that occur once on each side, in order (a longest
# increasing subsequence, O(n log n)), and recurses between anchors; only gaps without such
# anchors and small enough (GAP_CELLS) fall back to SequenceMatcher. Everything counts against
# a budget: past it DiffTooLarge, and the page offers both revisions for download instead.

from __future__ import annotations

import bisect
import difflib
from collections.abc import Iterator

WORK_LIMIT = 5_000_000  # lines scanned plus SequenceMatcher cells, per document
GAP_CELLS = 40_000  # a gap without anchors up to 200 x 200 lines is matched exactly
MAX_DEPTH = 64

Opcode = tuple[str, int, int, int, int]


class DiffTooLarge(Exception):
    """The diff would take more work than WORK_LIMIT allows."""


def line_opcodes(a: list[str], b: list[str], *, limit: int | None = None) -> list[Opcode]:
    """difflib-style opcodes (equal, replace, delete, insert) turning `a` into `b`."""
    budget = [WORK_LIMIT if limit is None else limit]
    matches: list[tuple[int, int]] = []
    _match(a, 0, len(a), b, 0, len(b), matches, budget, 0)
    return _opcodes(matches, len(a), len(b))


def _spend(budget: list[int], work: int) -> None:
    budget[0] -= work
    if budget[0] < 0:
        raise DiffTooLarge("the diff needs more work than the limit allows")


def _match(
    a: list[str],
    alo: int,
    ahi: int,
    b: list[str],
    blo: int,
    bhi: int,
    out: list[tuple[int, int]],
    budget: list[int],
    depth: int,
) -> None:
    """Append the matched (i, j) line pairs of a[alo:ahi] and b[blo:bhi] to `out`, in order."""
    while alo < ahi and blo < bhi and a[alo] == b[blo]:
        out.append((alo, blo))
        alo, blo = alo + 1, blo + 1
    tail = []
    while alo < ahi and blo < bhi and a[ahi - 1] == b[bhi - 1]:
        ahi, bhi = ahi - 1, bhi - 1
        tail.append((ahi, bhi))
    if alo < ahi and blo < bhi:
        _spend(budget, (ahi - alo) + (bhi - blo))
        anchors = _anchors(a, alo, ahi, b, blo, bhi) if depth < MAX_DEPTH else []
        if anchors:
            i0, j0 = alo, blo
            for i, j in anchors:
                _match(a, i0, i, b, j0, j, out, budget, depth + 1)
                out.append((i, j))
                i0, j0 = i + 1, j + 1
            _match(a, i0, ahi, b, j0, bhi, out, budget, depth + 1)
        elif (ahi - alo) * (bhi - blo) <= GAP_CELLS:
            _spend(budget, (ahi - alo) * (bhi - blo))
            matcher = difflib.SequenceMatcher(None, a[alo:ahi], b[blo:bhi], autojunk=False)
            for block in matcher.get_matching_blocks():
                out.extend((alo + block.a + k, blo + block.b + k) for k in range(block.size))
        # else: a large gap with no line in common once on each side stays one replacement.
    out.extend(reversed(tail))


def _anchors(
    a: list[str], alo: int, ahi: int, b: list[str], blo: int, bhi: int
) -> list[tuple[int, int]]:
    """Lines occurring once in each range, as (i, j) pairs forming the longest run in order."""
    counts: dict[str, list[int]] = {}
    for i in range(alo, ahi):
        entry = counts.setdefault(a[i], [0, 0, i, -1])
        entry[0] += 1
    for j in range(blo, bhi):
        seen = counts.get(b[j])
        if seen is not None:
            seen[1] += 1
            seen[3] = j
    pairs = sorted((e[2], e[3]) for e in counts.values() if e[0] == 1 and e[1] == 1)
    return _longest_increasing(pairs)


def _longest_increasing(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest subsequence of `pairs` (sorted by i) whose j also increases (patience sort)."""
    tops: list[int] = []  # j at the top of each pile
    top_index: list[int] = []  # index in pairs of each pile's top
    back: list[int] = []  # index of the predecessor of each pair, or -1
    for index, (_, j) in enumerate(pairs):
        pile = bisect.bisect_left(tops, j)
        back.append(top_index[pile - 1] if pile else -1)
        if pile == len(tops):
            tops.append(j)
            top_index.append(index)
        else:
            tops[pile] = j
            top_index[pile] = index
    result = []
    index = top_index[-1] if top_index else -1
    while index >= 0:
        result.append(pairs[index])
        index = back[index]
    return result[::-1]


def _opcodes(matches: list[tuple[int, int]], n: int, m: int) -> list[Opcode]:
    codes: list[Opcode] = []
    i = j = 0
    for mi, mj in [*matches, (n, m)]:
        if i < mi or j < mj:
            tag = "replace" if i < mi and j < mj else "delete" if i < mi else "insert"
            codes.append((tag, i, mi, j, mj))
        if mi < n and mj < m:
            if codes and codes[-1][0] == "equal" and codes[-1][2] == mi and codes[-1][4] == mj:
                _, i1, _, j1, _ = codes.pop()
                codes.append(("equal", i1, mi + 1, j1, mj + 1))
            else:
                codes.append(("equal", mi, mi + 1, mj, mj + 1))
        i, j = mi + 1, mj + 1
    return codes or [("equal", 0, 0, 0, 0)]


def grouped(codes: list[Opcode], context: int) -> Iterator[list[Opcode]]:
    """Hunks of opcodes with `context` equal lines around changes (difflib's get_grouped_opcodes)."""
    codes = list(codes)
    if codes[0][0] == "equal":
        tag, i1, i2, j1, j2 = codes[0]
        codes[0] = tag, max(i1, i2 - context), i2, max(j1, j2 - context), j2
    if codes[-1][0] == "equal":
        tag, i1, i2, j1, j2 = codes[-1]
        codes[-1] = tag, i1, min(i2, i1 + context), j1, min(j2, j1 + context)
    span = context + context
    group: list[Opcode] = []
    for tag, i1, i2, j1, j2 in codes:
        if tag == "equal" and i2 - i1 > span:
            group.append((tag, i1, min(i2, i1 + context), j1, min(j2, j1 + context)))
            yield group
            group = []
            i1, j1 = max(i1, i2 - context), max(j1, j2 - context)
        group.append((tag, i1, i2, j1, j2))
    if group and not (len(group) == 1 and group[0][0] == "equal"):
        yield group


def _range(start: int, stop: int) -> str:
    """A unified diff hunk range, as difflib writes it."""
    beginning = start + 1
    length = stop - start
    if length == 1:
        return f"{beginning}"
    if not length:
        beginning -= 1
    return f"{beginning},{length}"


def unified(
    a: list[str], b: list[str], codes: list[Opcode], *, fromfile: str, tofile: str, context: int
) -> list[str]:
    """The lines of a unified diff (no line ends), as difflib.unified_diff(lineterm="")."""
    lines: list[str] = []
    for group in grouped(codes, context):
        if not lines:
            lines += [f"--- {fromfile}", f"+++ {tofile}"]
        first, last = group[0], group[-1]
        lines.append(f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                lines += [" " + line for line in a[i1:i2]]
                continue
            lines += ["-" + line for line in a[i1:i2]]
            lines += ["+" + line for line in b[j1:j2]]
    return lines
