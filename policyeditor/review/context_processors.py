"""The "reviews waiting for me" badge in the header of every page."""

from __future__ import annotations

from django.http import HttpRequest

from policyeditor.review.models import Action


def reviews(request: HttpRequest) -> dict:
    """Counts for the Reviews nav link: reviews waiting for me plus unread changes on my drafts."""
    user = getattr(request, "user", None)
    if not getattr(user, "is_authenticated", False):
        return {}
    htmx = getattr(request, "htmx", None)
    if htmx and not htmx.boosted:
        # HTMX fragments (live validation, previews) render no header: skip the two count queries.
        return {}
    from policyeditor.review.audit import notifications_for
    from policyeditor.review.workflow import waiting_reviews

    waiting = waiting_reviews(user).count()
    # Review requests already count as waiting reviews; the rest are "changes on my drafts".
    unread = (
        notifications_for(user)
        .filter(read=False)
        .exclude(event__action=Action.REVIEW_REQUESTED)
        .count()
    )
    return {"reviews_waiting": waiting, "reviews_unread": unread, "reviews_badge": waiting + unread}
