"""Creating and saving drafts: the one place both the HTML views and the API write through."""

from __future__ import annotations

import copy
from typing import Any

from django.db import transaction
from django.db.models import F

from policyeditor.editor.errors import DraftInputError
from policyeditor.editor.models import POLICY_KINDS, Draft, Kind, Revision, Status
from policyeditor.editor.quotas import check_create, check_save
from policyeditor.engine.manifests.jsontext import unstorable
from policyeditor.engine.manifests.roundtrip import source_for, update_source
from policyeditor.engine.objects import ADMISSION_GROUP, name_of
from policyeditor.engine.versions import normalize_version, preferred_api_version


class Conflict(Exception):
    """The draft was saved by someone else since the editor loaded it; nothing was written."""

    def __init__(self, draft: Draft, expected: int, actual: int) -> None:
        self.draft = draft
        self.expected = expected
        self.actual = actual
        super().__init__(
            f"This draft was saved as revision {actual} while you were editing revision "
            f"{expected}. Your changes were not saved; reload to see the latest version "
            "(your edits are kept in this browser)."
        )


def _check_documents(documents: Any) -> list[dict]:
    """The documents as a list of mappings, or DraftInputError."""
    if not isinstance(documents, list):
        raise DraftInputError("documents must be a list of Kubernetes objects")
    for index, doc in enumerate(documents):
        if not isinstance(doc, dict):
            raise DraftInputError(f"document {index + 1} is not a mapping")
        # The parsers refuse these already; this keeps any other caller from storing a row
        # that the database refuses or that no page could show.
        problem = unstorable(doc)
        if problem:
            raise DraftInputError(f"document {index + 1}: {problem}")
    return copy.deepcopy(documents)


def _version(version: str | None) -> str:
    """The canonical Kubernetes version, or DraftInputError."""
    try:
        return normalize_version(version)
    except ValueError as exc:
        raise DraftInputError(str(exc)) from exc


def infer_kind(documents: list[dict]) -> str:
    """VAP or MAP, from the first policy or binding among the documents (VAP when none)."""
    for doc in documents:
        kind = doc.get("kind") if isinstance(doc, dict) else ""
        kind = kind if isinstance(kind, str) else ""
        if kind.startswith("MutatingAdmissionPolicy"):
            return Kind.MAP
        if kind.startswith("ValidatingAdmissionPolicy"):
            return Kind.VAP
    return Kind.VAP


def policy_name(documents: list[dict], kind: str) -> str:
    """metadata.name of the draft's policy document, or ''."""
    for doc in documents:
        if doc.get("kind") == POLICY_KINDS[Kind(kind)]:
            return name_of(doc)
    return ""


def api_version_of(documents: list[dict], kind: str, version: str) -> str:
    """The policy's apiVersion, else the preferred one for the kind in `version`."""
    for doc in documents:
        if doc.get("kind") == POLICY_KINDS[Kind(kind)] and isinstance(doc.get("apiVersion"), str):
            return doc["apiVersion"]
    preferred = preferred_api_version(POLICY_KINDS[Kind(kind)], version)
    return f"{ADMISSION_GROUP}/{preferred}" if preferred else f"{ADMISSION_GROUP}/v1"


@transaction.atomic
def create_draft(
    owner,
    documents: list[dict],
    *,
    name: str = "",
    kind: str | None = None,
    kubernetes_version: str | None = None,
    description: str = "",
    note: str = "Created",
    source: str = "",
) -> Draft:
    """Create a draft with its first revision (number 1) from Kubernetes documents.

    `source` is the YAML the documents were read from: kept as written when it loads to them.
    """
    docs = _check_documents(documents)
    text = source_for(source, docs)
    version = _version(kubernetes_version)
    if kind and kind not in Kind.values:
        raise DraftInputError(f"kind must be one of {', '.join(Kind.values)}, not {kind!r}")
    kind = Kind(kind) if kind else infer_kind(docs)
    name = (name or policy_name(docs, kind) or "untitled").strip()[:253]
    size = check_create(owner, docs)  # QuotaExceeded past the owner's storage limits
    draft = Draft.objects.create(
        name=name,
        description=description,
        kind=kind,
        kubernetes_version=version,
        api_version=api_version_of(docs, kind, version),
        documents=docs,
        source=text,
        owner=owner,
        status=Status.DRAFT,
        revision=1,
    )
    Revision.objects.create(
        draft=draft,
        number=1,
        documents=docs,
        source=text,
        kubernetes_version=version,
        author=owner,
        note=note[:500],
        size=size,
    )
    return draft


def save_draft(
    draft: Draft,
    documents: list[dict],
    *,
    expected_revision: int,
    author,
    note: str = "",
    kubernetes_version: str | None = None,
    name: str | None = None,
    source: str | None = None,
) -> Draft:
    """Save new documents as the next revision; Conflict if `expected_revision` is stale.

    `source` is the YAML the documents were read from (kept as written when it loads to them);
    without it the stored YAML is updated where the documents changed, the rest kept as written.
    A save that changes nothing (same documents, YAML, version and name as the latest revision)
    stores nothing: the draft comes back with `unchanged` set. QuotaExceeded past a storage limit.
    """
    # The check and the write are one conditional UPDATE inside a transaction, so two
    # concurrent saves of the same revision cannot both succeed (no lost work).
    docs = _check_documents(documents)
    version = _version(kubernetes_version or draft.kubernetes_version)
    try:
        expected_revision = int(expected_revision)
    except (TypeError, ValueError) as exc:
        raise DraftInputError("expected_revision must be a revision number") from exc
    with transaction.atomic():
        new_number = int(expected_revision) + 1
        name = (name or policy_name(docs, draft.kind) or draft.name).strip()[:253]
        stored = (
            Draft.objects.filter(pk=draft.pk)
            .values("revision", "documents", "source", "kubernetes_version", "name")
            .first()
        )
        old_source = stored["source"] if stored is not None else ""
        text = source_for(source, docs) if source is not None else update_source(old_source, docs)
        same = (docs, text, version, name)
        if stored is not None and (
            stored["revision"] == expected_revision
            and (
                stored["documents"],
                old_source or text,
                stored["kubernetes_version"],
                stored["name"],
            )
            == same
        ):
            draft.refresh_from_db()
            draft.unchanged = True
            return draft
        size = check_save(draft, docs)
        fields = {
            "documents": docs,
            "source": text,
            "kubernetes_version": version,
            "api_version": api_version_of(docs, draft.kind, version),
            "name": name,
        }
        updated = Draft.objects.filter(pk=draft.pk, revision=expected_revision).update(
            revision=F("revision") + 1, **fields
        )
        if not updated:
            current = Draft.objects.filter(pk=draft.pk).values_list("revision", flat=True).first()
            raise Conflict(draft, int(expected_revision), int(current or 0))
        Revision.objects.create(
            draft_id=draft.pk,
            number=new_number,
            documents=docs,
            source=text,
            kubernetes_version=version,
            author=author,
            note=(note or "")[:500],
            size=size,
        )
    draft.refresh_from_db()
    draft.unchanged = False
    return draft
