"""Template context shared by every page."""

from __future__ import annotations

from django.http import HttpRequest

import policyeditor


def navigation(request: HttpRequest) -> dict:
    """The app version and the current section for the header navigation."""
    match = getattr(request, "resolver_match", None)
    return {
        "app_version": policyeditor.__version__,
        "nav_section": match.namespace if match else "",
    }
