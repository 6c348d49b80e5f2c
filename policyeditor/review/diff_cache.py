"""Revision diffs computed once per pair of revisions and kept in the shared cache."""

# Revisions never change (editor.models.Revision refuses updates), so a diff keyed by the two
# revision ids stays right forever; the key carries a version to drop entries when the diff
# format changes. The cache is the database table every gunicorn worker shares (settings.CACHES).

from __future__ import annotations

from django.core.cache import cache

from policyeditor.editor.models import Revision
from policyeditor.review.diffs import RevisionDiff, diff_revisions

VERSION = 1
TIMEOUT = 30 * 24 * 3600  # a month: old pairs age out; a page view computes one again


def revision_diff(old: Revision, new: Revision) -> RevisionDiff:
    """The diff of two revisions, from the cache when a page view already computed it."""
    key = f"revision-diff:v{VERSION}:{old.pk}:{new.pk}"
    diff = cache.get(key)
    if isinstance(diff, RevisionDiff):
        return diff
    diff = diff_revisions(
        old.documents, new.documents, old_name=f"r{old.number}", new_name=f"r{new.number}"
    )
    cache.set(key, diff, TIMEOUT)
    return diff
