"""Picking the writer of an export layout: kat, kaptest or Kyverno CLI."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from policyeditor.engine.suites.exports.common import Export, slug
from policyeditor.engine.suites.exports.kaptest import export_kaptest
from policyeditor.engine.suites.exports.kat import export_kat
from policyeditor.engine.suites.exports.kyverno import export_kyverno

Writer = Callable[[list[dict[str, Any]], list[dict[str, Any]], str, str], Export]
WRITERS: dict[str, Writer] = {
    "kat": export_kat,
    "kaptest": export_kaptest,
    "kyverno": export_kyverno,
}
EXPORT_LAYOUTS = tuple(WRITERS)


def export_suite(
    layout: str,
    documents: list[dict[str, Any]],
    cases: list[dict[str, Any]],
    *,
    version: str,
    name: str,
) -> Export:
    """The files of `layout` ("kat", "kaptest" or "kyverno") for PolicyTest `cases` on `documents`."""
    if layout not in WRITERS:
        raise ValueError(f"unknown export layout {layout!r}: one of {', '.join(EXPORT_LAYOUTS)}")
    return WRITERS[layout](documents, cases, version, slug(name))
