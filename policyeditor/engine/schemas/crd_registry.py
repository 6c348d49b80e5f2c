"""Bundles of checked CRDs: flattened, loaded without name or kind conflicts, merged, looked up.

The conflicts are the naming controller's (kubernetes/kubernetes staging/src/k8s.io/
apiextensions-apiserver/pkg/controller/status/naming_controller.go), in its words.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from policyeditor.engine.schemas.crds import CrdError, CustomResourceDefinition, parse_crd
from policyeditor.engine.schemas.resources import ResourceInfo

MAX_CRDS = 500


def crd_documents(documents: Iterable[Any]) -> list[Any]:
    """The CRDs of a bundle: List and CustomResourceDefinitionList items flattened."""
    # `kubectl get crd -o yaml` writes a `kind: List` whose items are the CRDs.
    flat: list[Any] = []
    for document in documents:
        if document is None:
            continue
        if isinstance(document, dict) and document.get("kind") in (
            "List",
            "CustomResourceDefinitionList",
        ):
            items = document.get("items")
            flat.extend(items if isinstance(items, list) else [])
            continue
        flat.append(document)
    return flat


class CrdRegistry:
    """Checked CRDs keyed by group and kind; the CRD layer every schema lookup consults."""

    def __init__(self, crds: Sequence[CustomResourceDefinition] = ()) -> None:
        self.crds: tuple[CustomResourceDefinition, ...] = tuple(crds)
        self._by_kind = {(c.group, c.kind): c for c in self.crds}

    def __bool__(self) -> bool:
        return bool(self.crds)

    def __len__(self) -> int:
        return len(self.crds)

    def find(self, group: str, kind: str) -> CustomResourceDefinition | None:
        """The CRD of a group and kind, or None."""
        return self._by_kind.get((group or "", kind))

    def find_plural(self, group: str, plural: str) -> CustomResourceDefinition | None:
        """The CRD of a group and resource (plural), or None."""
        return next((c for c in self.crds if c.group == group and c.plural == plural), None)

    def schema_for(self, group: str, version: str, kind: str) -> dict[str, Any] | None:
        """The published schema of a served version of a CRD kind, or None.

        Shared, not copied (copying a large CRD's schema costs tens of milliseconds a lookup):
        callers read schemas and never change them, as with the built-in definitions.
        """
        crd = self.find(group, kind)
        entry = crd.version(version) if crd is not None else None
        return dict(entry.schema) if entry is not None else None

    def resources(self) -> tuple[ResourceInfo, ...]:
        """One ResourceInfo per served version of each CRD."""
        return tuple(info for crd in self.crds for info in crd.resources())

    def documents(self) -> list[dict[str, Any]]:
        """The CRD documents as given (for handing to worker processes)."""
        return [c.source for c in self.crds]


def load_crds(documents: Iterable[Any], *, source: str = "") -> CrdRegistry:
    """Check a bundle of CRDs and register them; raises CrdError naming the first bad one."""
    crds: list[CustomResourceDefinition] = []
    by_name: dict[str, CustomResourceDefinition] = {}
    where = f"{source}: " if source else ""
    flat = crd_documents(documents)
    if len(flat) > MAX_CRDS:
        raise CrdError(
            f"{where}too many CustomResourceDefinitions ({len(flat)}, at most {MAX_CRDS})"
        )
    for position, document in enumerate(flat):
        try:
            crd = parse_crd(document)
        except CrdError as exc:
            label = f"document {position + 1}" if len(flat) > 1 else ""
            prefix = f"{where}{label}: " if label else where
            raise CrdError(f"{prefix}{exc}", exc.errors) from None
        earlier = by_name.get(crd.name)
        if earlier is not None:
            if earlier.source == crd.source:
                continue
            raise CrdError(
                f'{where}customresourcedefinitions.apiextensions.k8s.io "{crd.name}" '
                "is given twice with different contents"
            )
        clash = next((c for c in crds if c.group == crd.group and c.kind == crd.kind), None)
        if clash is not None:
            # naming_controller.go, calculateNamesAndConditions: KindConflict.
            raise CrdError(
                f'{where}CustomResourceDefinition "{crd.name}": NamesAccepted=False '
                f'(KindConflict): "{crd.kind}" is already in use (by "{clash.name}")'
            )
        by_name[crd.name] = crd
        crds.append(crd)
    return CrdRegistry(crds)


def merge_registries(*registries: CrdRegistry | None) -> CrdRegistry:
    """One registry from several; a later CRD of the same name replaces an earlier one."""
    by_name: dict[str, CustomResourceDefinition] = {}
    for registry in registries:
        for crd in registry.crds if registry is not None else ():
            by_name.pop(crd.name, None)
            by_name[crd.name] = crd
    kinds: dict[tuple[str, str], str] = {}
    for crd in by_name.values():
        other = kinds.setdefault((crd.group, crd.kind), crd.name)
        if other != crd.name:
            raise CrdError(
                f'CustomResourceDefinition "{crd.name}": NamesAccepted=False (KindConflict): '
                f'"{crd.kind}" is already in use (by "{other}")'
            )
    return CrdRegistry(list(by_name.values()))
