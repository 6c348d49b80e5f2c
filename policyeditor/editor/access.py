"""Who may see which draft: every view and API endpoint fetches drafts through here."""

from __future__ import annotations

from django.http import Http404

from policyeditor.editor.models import Draft


def get_draft_for(user, pk) -> Draft:
    """The draft `pk` if `user` may see it (owner or staff), else Http404 (never 403: no leak)."""
    try:
        return Draft.objects.visible_to(user).select_related("owner").get(pk=int(pk))
    except (Draft.DoesNotExist, ValueError, TypeError) as exc:
        raise Http404("No such draft") from exc
