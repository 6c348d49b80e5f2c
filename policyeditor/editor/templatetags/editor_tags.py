"""Template helpers of the editor: field help from the Kubernetes OpenAPI descriptions."""

from __future__ import annotations

import json
from functools import lru_cache

from django import template
from django.utils.html import format_html

from policyeditor.engine import schemas
from policyeditor.engine.objects import ADMISSION_GROUP

register = template.Library()


@lru_cache(maxsize=512)
def help_text(kind: str, key_path: str) -> str:
    """The OpenAPI description of a field of a policy kind ('' when the schemas lack it)."""
    path = key_path.replace("/", ".")
    for api in ("v1", "v1beta1", "v1alpha1"):
        try:
            doc = schemas.field_doc(ADMISSION_GROUP, api, kind, path)
        except Exception:  # help is a nicety: a schema problem must never break the form
            doc = None
        if doc:
            return doc
    return ""


def _first_sentence(text: str) -> str:
    head = text.split("\n", 1)[0]
    end = head.find(". ")
    return head[: end + 1] if 0 < end < 220 else head[:220]


@register.simple_tag
def field_help(bound) -> str:
    """A one-line help under a control, with the full description folded behind it."""
    text = help_text(bound.kind, bound.key_path)
    if not text:
        return ""
    short = _first_sentence(text)
    if short == text.strip():
        return format_html('<p class="help">{}</p>', short)
    return format_html(
        '<details class="help"><summary>{}</summary><div class="help-full">{}</div></details>',
        short,
        text,
    )


@register.filter
def tojson(value, indent: int | None = None) -> str:
    """A value as JSON text (CEL results read as CEL/JSON, not as Python reprs)."""
    try:
        return json.dumps(value, indent=indent, ensure_ascii=False, sort_keys=False)
    except (TypeError, ValueError):
        return str(value)
