"""Importing CRDs into a team's library (all or nothing) and reading the library back."""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, transaction

from policyeditor.engine import manifests, schemas
from policyeditor.engine.errors import InputError
from policyeditor.schemalib.models import LibraryVersion
from policyeditor.teams.models import Team

# A team's whole library: the API server's request limit (3 MiB) for one import's text, and at
# most this much for all CRDs kept together.
MAX_LIBRARY_BYTES = 8 * 1024 * 1024


class ImportRefused(InputError):
    """An import that stores nothing; the message says why (in the API server's words)."""


def latest(team: Team | None) -> LibraryVersion | None:
    """The team's current library version, or None."""
    if team is None:
        return None
    return LibraryVersion.objects.filter(team=team).order_by("-number").first()


def latest_documents(team: Team | None) -> list[dict[str, Any]]:
    """The CRD documents drafts of the team use (empty without a library)."""
    version = latest(team)
    return list(version.documents) if version is not None else []


def summarize(registry: schemas.CrdRegistry) -> list[dict[str, Any]]:
    """What the library page lists per CRD."""
    return [
        {
            "name": crd.name,
            "group": crd.group,
            "kind": crd.kind,
            "plural": crd.plural,
            "scope": crd.scope,
            "versions": [v.name for v in crd.versions if v.served],
            "storage": crd.storage_version,
            "subresources": sorted({s for v in crd.versions for s in v.subresources}),
        }
        for crd in sorted(registry.crds, key=lambda c: c.name)
    ]


def parse_import(text: str | bytes, source: str = "import") -> schemas.CrdRegistry:
    """The CRDs of pasted or uploaded YAML/JSON (a List dump too); ImportRefused if any is bad."""
    try:
        documents = manifests.load_documents(text, source=source)
    except InputError as exc:
        raise ImportRefused(str(exc)) from None
    if not documents:
        raise ImportRefused("no CustomResourceDefinition in the text")
    try:
        return schemas.load_crds(documents)
    except schemas.CrdError as exc:
        raise ImportRefused(str(exc)) from None


def import_crds(team: Team, user: Any, text: str | bytes, source: str = "import") -> LibraryVersion:
    """Add the CRDs of `text` to the team's library as a new version; nothing is stored on error."""
    new = parse_import(text, source)
    size = len(text.encode("utf-8") if isinstance(text, str) else text)
    with transaction.atomic():
        current = (
            LibraryVersion.objects.select_for_update().filter(team=team).order_by("-number").first()
        )
        base = schemas.load_crds(current.documents) if current is not None else None
        try:
            merged = schemas.merge_registries(base, new)
        except schemas.CrdError as exc:
            raise ImportRefused(str(exc)) from None
        total = sum(len(str(d)) for d in merged.documents())
        if total > MAX_LIBRARY_BYTES:
            raise ImportRefused(
                f"the library would hold {total} bytes of CRDs; at most {MAX_LIBRARY_BYTES} are kept"
            )
        replaced = {c.name for c in base.crds} & {c.name for c in new.crds} if base else set()
        added = len(new.crds) - len(replaced)
        note = f"{added} added, {len(replaced)} replaced"
        try:
            return LibraryVersion.objects.create(
                team=team,
                number=(current.number + 1) if current is not None else 1,
                documents=merged.documents(),
                summary=summarize(merged),
                note=note,
                size=size,
                created_by=user if getattr(user, "pk", None) else None,
            )
        except IntegrityError:  # a concurrent import took the number: the user retries
            raise ImportRefused("another import finished first; import again") from None
