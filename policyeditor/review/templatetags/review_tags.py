"""Template helpers of the review pages: safe comment markdown and JSON-ish values."""

from __future__ import annotations

import json
from typing import Any

from django import template
from django.utils.safestring import SafeString

from policyeditor.review.markdown import render

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
