"""Server-side autosave: each editor's unsaved form state, offered back when they return."""

from __future__ import annotations

from policyeditor.editor.models import Autosave, Draft


def record(draft: Draft, user, documents: list[dict], version: str, base_revision: int) -> bool:
    """Keep `documents` as `user`'s unsaved state of `draft`; False when nothing is unsaved."""
    if documents == draft.documents and version == draft.kubernetes_version:
        discard(draft, user)
        return False
    Autosave.objects.update_or_create(
        draft=draft,
        user=user,
        defaults={
            "documents": documents,
            "kubernetes_version": version,
            "base_revision": base_revision,
        },
    )
    return True


def pending(draft: Draft, user) -> Autosave | None:
    """`user`'s kept unsaved state of `draft`, unless it equals what is saved."""
    autosave = Autosave.objects.filter(draft=draft, user=user).first()
    if autosave is None:
        return None
    if (
        autosave.documents == draft.documents
        and autosave.kubernetes_version == draft.kubernetes_version
    ):
        autosave.delete()
        return None
    return autosave


def discard(draft: Draft, user) -> None:
    """Forget `user`'s unsaved state of `draft` (after a save, or when they discard it)."""
    Autosave.objects.filter(draft=draft, user=user).delete()
