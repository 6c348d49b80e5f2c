"""Each user's Try-it inputs of a draft, kept on the server so they survive a reload."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from policyeditor.editor.models import Draft, TryInput

# The Try-it form's fields; text fields are capped like the rest of a post (settings limits).
TEXT_FIELDS = (
    "try_object",
    "try_old_object",
    "try_params",
    "try_namespace_object",
    "try_operation",
    "try_sub_resource",
    "try_username",
    "try_groups",
    "try_authorizer",
)
CHECK_FIELDS = ("try_dry_run", "try_no_defaulting")
MAX_TEXT = 200_000


def inputs_of(post: Mapping[str, Any]) -> dict[str, Any]:
    """The Try-it inputs of a posted form, as stored."""
    found: dict[str, Any] = {name: str(post.get(name, ""))[:MAX_TEXT] for name in TEXT_FIELDS}
    found.update({name: post.get(name) == "on" for name in CHECK_FIELDS})
    return found


def remember(draft: Draft, user, post: Mapping[str, Any]) -> None:
    """Keep the posted Try-it inputs as `user`'s for `draft` (one record, replaced each time)."""
    if "try_object" not in post:
        return  # not a Try-it post (a test-case save from elsewhere)
    TryInput.objects.update_or_create(draft=draft, user=user, defaults={"inputs": inputs_of(post)})


def recall(draft: Draft, user) -> dict[str, Any]:
    """`user`'s kept Try-it inputs of `draft` ({} when none)."""
    kept = TryInput.objects.filter(draft=draft, user=user).values_list("inputs", flat=True).first()
    return dict(kept) if isinstance(kept, dict) else {}
