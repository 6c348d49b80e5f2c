"""Exports of PolicyTest cases as kat directories, kaptest manifests and Kyverno CLI tests."""

from policyeditor.engine.suites.exports.common import Export
from policyeditor.engine.suites.exports.suite import EXPORT_LAYOUTS, export_suite

__all__ = ["EXPORT_LAYOUTS", "Export", "export_suite"]
