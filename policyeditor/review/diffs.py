"""Semantic per-document YAML diffs of two revisions, side by side and unified.

Documents are paired by (API group, kind, namespace, name), so reordering documents, changing only
the API version's formatting or re-indenting YAML shows no change. Each pair is compared as data; a
changed pair is dumped as kubectl-ready YAML with the old side's keys put in the new side's order,
so moving keys around is not a change either. Text is returned raw: templates escape it.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any

from policyeditor.engine.errors import InputError
from policyeditor.engine.manifests.diff import CONTEXT
from policyeditor.engine.manifests.linediff import DiffTooLarge, Opcode, line_opcodes, unified
from policyeditor.engine.manifests.loading import dump_documents
from policyeditor.engine.manifests.positions import field_positions
from policyeditor.engine.objects import kind_of, name_of, namespace_of

# A changed line pair longer than this (characters multiplied) is highlighted whole: the
# character diff is quadratic, and a multi-kilobyte line is one long value anyway.
INTRALINE_CELLS = 250_000


@dataclass
class Segment:
    """A run of characters on one side of a line, changed or not (for intraline highlight)."""

    text: str
    changed: bool = False


@dataclass
class Row:
    """One line of the side-by-side view; `kind` is equal, change, insert, delete or skip."""

    kind: str
    left_no: int | None = None
    left: list[Segment] = field(default_factory=list)
    right_no: int | None = None
    right: list[Segment] = field(default_factory=list)
    skipped: int = 0  # for kind == "skip": how many unchanged lines are folded
    # The field the new side's line writes (spec.validations[0].expression), for commenting on it.
    right_path: str = ""


@dataclass
class DocumentDiff:
    """The difference of one document between two revisions."""

    label: str
    status: str  # unchanged | changed | added | removed | renamed
    old_text: str
    new_text: str
    unified: str
    rows: list[Row]
    added: int = 0
    removed: int = 0
    # The diff needed more work than linediff.WORK_LIMIT: the page offers both sides to download.
    too_large: bool = False

    @property
    def changed(self) -> bool:
        """Whether the document differs at all."""
        return self.status != "unchanged"


@dataclass
class RevisionDiff:
    """Every document's difference between two revisions."""

    documents: list[DocumentDiff]

    @property
    def changed(self) -> bool:
        """Whether anything differs."""
        return any(doc.changed for doc in self.documents)

    @property
    def unified(self) -> str:
        """All documents' unified diffs as one patch."""
        return "".join(doc.unified for doc in self.documents if doc.changed)

    @property
    def summary(self) -> dict[str, int]:
        """Counts of documents per status and of changed lines."""
        counts: dict[str, int] = {}
        for doc in self.documents:
            counts[doc.status] = counts.get(doc.status, 0) + 1
        counts["lines_added"] = sum(doc.added for doc in self.documents)
        counts["lines_removed"] = sum(doc.removed for doc in self.documents)
        return counts


def _group(api_version: Any) -> str:
    if not isinstance(api_version, str):
        return ""
    return api_version.rpartition("/")[0] if "/" in api_version else ""


def document_key(doc: Any, index: int) -> tuple[str, str, str, str]:
    """What identifies a document across revisions; unnamed ones fall back to their position."""
    if not isinstance(doc, dict):
        return ("", "", "", f"#{index}")
    name = name_of(doc)
    return (_group(doc.get("apiVersion")), kind_of(doc), namespace_of(doc), name or f"#{index}")


def _unique_keys(docs: list[Any]) -> list[tuple[str, str, str, str]]:
    """Document keys, with a position suffix when two documents share one."""
    keys: list[tuple[str, str, str, str]] = []
    seen: set[tuple[str, str, str, str]] = set()
    for index, doc in enumerate(docs):
        key = document_key(doc, index)
        if key in seen:
            key = (*key[:3], f"{key[3]}#{index}")
        keys.append(key)
        seen.add(key)
    return keys


def document_label(doc: Any, index: int) -> str:
    """A heading for a document: `Kind namespace/name`."""
    _, kind, namespace, name = document_key(doc, index)
    where = f"{namespace}/{name}" if namespace else name
    return f"{kind or 'document'} {where}".strip()


def _reorder_like(old: Any, new: Any) -> Any:
    """`old` with mapping keys in `new`'s order (shared keys first), recursively."""
    if isinstance(old, dict) and isinstance(new, dict):
        keys = [k for k in new if k in old] + [k for k in old if k not in new]
        return {k: _reorder_like(old[k], new.get(k)) for k in keys}
    if isinstance(old, list) and isinstance(new, list):
        return [_reorder_like(o, new[i] if i < len(new) else None) for i, o in enumerate(old)]
    return old


def _dump(doc: Any) -> str:
    if doc is None:
        return ""
    try:
        return dump_documents([doc])
    except InputError as error:  # never raise for a stored oddity: show what we can
        return f"# cannot show this document: {error}\n"


def _intraline(old: str, new: str) -> tuple[list[Segment], list[Segment]]:
    """Both sides of a changed line split into unchanged and changed runs."""
    left: list[Segment] = []
    right: list[Segment] = []
    if len(old) * len(new) > INTRALINE_CELLS:
        return [Segment(old, True)], [Segment(new, True)]
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if i2 > i1:
            left.append(Segment(old[i1:i2], tag != "equal"))
        if j2 > j1:
            right.append(Segment(new[j1:j2], tag != "equal"))
    return left, right


def _rows(old_lines: list[str], new_lines: list[str], opcodes: list[Opcode]) -> list[Row]:
    """Side-by-side rows with unchanged stretches folded beyond CONTEXT lines."""
    rows: list[Row] = []
    for number, (tag, i1, i2, j1, j2) in enumerate(opcodes):
        if tag == "equal":
            span = i2 - i1
            keep_head = CONTEXT if number > 0 else 0
            keep_tail = CONTEXT if number < len(opcodes) - 1 else 0
            if span > keep_head + keep_tail + 1:
                for k in range(keep_head):
                    rows.append(_equal(old_lines, i1 + k, j1 + k))
                rows.append(Row("skip", skipped=span - keep_head - keep_tail))
                for k in range(span - keep_tail, span):
                    rows.append(_equal(old_lines, i1 + k, j1 + k))
            else:
                rows.extend(_equal(old_lines, i1 + k, j1 + k) for k in range(span))
            continue
        left = old_lines[i1:i2]
        right = new_lines[j1:j2]
        for k in range(max(len(left), len(right))):
            lo = left[k] if k < len(left) else None
            ro = right[k] if k < len(right) else None
            if lo is not None and ro is not None:
                ls, rs = _intraline(lo, ro)
                rows.append(Row("change", i1 + k + 1, ls, j1 + k + 1, rs))
            elif lo is not None:
                rows.append(Row("delete", i1 + k + 1, [Segment(lo, True)]))
            else:
                rows.append(Row("insert", right_no=j1 + k + 1, right=[Segment(ro or "", True)]))
    return rows


def _equal(lines: list[str], i: int, j: int) -> Row:
    return Row("equal", i + 1, [Segment(lines[i])], j + 1, [Segment(lines[i])])


def line_paths(text: str) -> dict[int, str]:
    """For each line of one document's YAML, the deepest field path written on it."""
    try:
        positions = field_positions(text)
    except Exception:  # a comment anchor is a convenience: never fail the diff over it
        return {}
    found: dict[int, str] = {}
    for path, (line, _) in (positions[0] if positions else {}).items():
        if path and len(path) > len(found.get(line, "")):
            found[line] = path
    return found


def diff_document(
    old: Any, new: Any, *, label: str, old_name: str = "old", new_name: str = "new"
) -> DocumentDiff:
    """The diff of one document; either side may be None (added or removed)."""
    if old is not None and new is not None:
        if old == new:
            text = _dump(new)
            return DocumentDiff(label, "unchanged", text, text, "", [])
        old = _reorder_like(old, new)
    old_text, new_text = _dump(old), _dump(new)
    old_lines, new_lines = old_text.splitlines(), new_text.splitlines()
    status = "added" if old is None else "removed" if new is None else "changed"
    try:
        opcodes = line_opcodes(old_lines, new_lines)
    except DiffTooLarge:
        return DocumentDiff(label, status, old_text, new_text, "", [], too_large=True)
    lines = unified(
        old_lines,
        new_lines,
        opcodes,
        fromfile=f"{old_name}/{label}",
        tofile=f"{new_name}/{label}",
        context=CONTEXT,
    )
    text = "\n".join(lines)
    rows = _rows(old_lines, new_lines, opcodes)
    if new is not None:
        paths = line_paths(new_text)
        for row in rows:
            row.right_path = paths.get(row.right_no or 0, "")
    added = sum(1 for row in rows if row.kind in ("insert", "change"))
    removed = sum(1 for row in rows if row.kind in ("delete", "change"))
    return DocumentDiff(
        label, status, old_text, new_text, text + "\n" if text else "", rows, added, removed
    )


def diff_revisions(
    old_docs: list[Any] | None,
    new_docs: list[Any] | None,
    *,
    old_name: str = "old",
    new_name: str = "new",
) -> RevisionDiff:
    """Pair the documents of two revisions and diff each pair, in the new revision's order."""
    old_docs = list(old_docs or [])
    new_docs = list(new_docs or [])
    old_keys = _unique_keys(old_docs)
    old_by_key = dict(zip(old_keys, old_docs, strict=True))
    new_keys = _unique_keys(new_docs)
    new_key_set = set(new_keys)
    unmatched_old = [key for key in old_keys if key not in new_key_set]
    results: list[DocumentDiff] = []
    for index, (key, doc) in enumerate(zip(new_keys, new_docs, strict=True)):
        label = document_label(doc, index)
        old = old_by_key.get(key)
        renamed = False
        if old is None:
            # A renamed document: the first unmatched old one of the same group and kind.
            same = [k for k in unmatched_old if k[:2] == key[:2]]
            if same:
                old = old_by_key[same[0]]
                unmatched_old.remove(same[0])
                renamed = True
        diff = diff_document(old, doc, label=label, old_name=old_name, new_name=new_name)
        if renamed:
            diff.status = "renamed"
            diff.label = f"{document_label(old, 0)} → {label}"
        results.append(diff)
    for key in unmatched_old:
        old = old_by_key[key]
        label = document_label(old, old_keys.index(key))
        results.append(diff_document(old, None, label=label, old_name=old_name, new_name=new_name))
    return RevisionDiff(results)
