"""Picking the writer of an export layout: kat, kaptest or Kyverno CLI."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from policyeditor.engine.suites.exports import kat, kyverno
from policyeditor.engine.suites.exports.common import (
    CaseWriter,
    Export,
    case_inputs,
    export_folders,
    slug,
)
from policyeditor.engine.suites.exports.kaptest import export_kaptest

Writer = Callable[[list[dict[str, Any]], list[dict[str, Any]], str, str], Export]


def folders_of(write: CaseWriter, title: str, how: str) -> Writer:
    """The writer of a layout with one folder per case (or per policy and binding)."""

    def export(
        documents: list[dict[str, Any]], cases: list[dict[str, Any]], version: str, name: str
    ) -> Export:
        items = case_inputs(documents, cases, version)
        return export_folders(items, write, name, f"{name}: {title}", how)

    return export


WRITERS: dict[str, Writer] = {
    "kat": folders_of(kat.case_files, "kat directories", kat.HOW),
    "kaptest": export_kaptest,
    "kyverno": folders_of(kyverno.case_files, "Kyverno CLI tests", kyverno.HOW),
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
