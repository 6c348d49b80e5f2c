"""Template helpers of the review pages: safe comment markdown, JSON-ish values, impact rows."""

from __future__ import annotations

import json
from typing import Any

from django import template
from django.utils.safestring import SafeString

from policyeditor.review.impact_report import Side, side
from policyeditor.review.markdown import render
from policyeditor.review.models import ImpactResult

register = template.Library()


@register.filter
def comment_html(body: str, members: list[str] | None = None) -> SafeString:
    """A comment body as safe HTML (raw HTML escaped), highlighting @mentions of `members`."""
    return render(body, members=members or [])


@register.filter
def short_value(value: Any, limit: int = 160) -> str:
    """A field value as compact JSON for an anchor preview (escaped by the template)."""
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


@register.filter
def outcome(row: ImpactResult, operation: str) -> Side:
    """One operation of an impact run's row, as its table cell reads it."""
    return side(row, operation)
