"""Template helpers of the editor: field help from the Kubernetes OpenAPI descriptions."""

from __future__ import annotations

import json

from django import template
from django.utils.html import format_html

from policyeditor.editor.fieldhelp import field_doc, reference_url, short_help

register = template.Library()


@register.simple_tag
def field_help(bound) -> str:
    """One line of help under a control, specific to the field and the kind, and a "more" link."""
    short = short_help(bound.kind, bound.key_path)
    if not short:
        return ""
    url = reference_url(bound.kind)
    if not url:
        return format_html('<p class="help">{}</p>', short)
    full = field_doc(bound.kind, bound.key_path)
    return format_html(
        '<p class="help"><span class="help-text" title="{}">{}</span> <a class="help-more" '
        'href="{}" target="_blank" rel="noopener" title="{}">more</a></p>',
        short,
        short,
        url,
        full or short,
    )


@register.filter
def split_advanced(fields: list) -> dict:
    """A section's or row's controls split into the usual ones and those behind "More options"."""
    advanced = [bf for bf in fields if bf.field.advanced]
    return {
        "basic": [bf for bf in fields if not bf.field.advanced],
        "advanced": advanced,
        "open": any(bf.filled for bf in advanced),
        "names": ", ".join(bf.field.label.lower() for bf in advanced),
    }


@register.filter
def tojson(value, indent: int | None = None) -> str:
    """A value as JSON text (CEL results read as CEL/JSON, not as Python reprs)."""
    try:
        return json.dumps(value, indent=indent, ensure_ascii=False, sort_keys=False)
    except (TypeError, ValueError):
        return str(value)
