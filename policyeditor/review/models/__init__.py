"""Review state of drafts: reviews, comments, audit events, share links, test cases, impact runs."""

from policyeditor.review.models.audit import Action, AuditEvent, Notification
from policyeditor.review.models.impact import ImpactChunk, ImpactResult, ImpactRun, impact_storage
from policyeditor.review.models.reviews import Comment, Decision, DraftWorkflow, Review
from policyeditor.review.models.sharing import ShareLink
from policyeditor.review.models.sharing import new_token as _new_token  # noqa: F401 - see below
from policyeditor.review.models.testcases import SavedTestCase

# `_new_token` and `impact_storage` stay reachable here: migrations 0001 and 0008 name the share
# link token's default and the dumps' storage as policyeditor.review.models attributes.

__all__ = [
    "Action",
    "AuditEvent",
    "Comment",
    "Decision",
    "DraftWorkflow",
    "ImpactChunk",
    "ImpactResult",
    "ImpactRun",
    "Notification",
    "Review",
    "SavedTestCase",
    "ShareLink",
    "impact_storage",
]
