"""The built-in REST resources of a Kubernetes version: plural names, scope, subresources.

The OpenAPI schemas give group/version/kind; the curated table in resources_data.py adds what
discovery would tell (plural, namespaced, subresources, equivalent resources).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from policyeditor.engine.schemas import layer
from policyeditor.engine.schemas.openapi import definitions_by_key, gvk_index, version_key
from policyeditor.engine.schemas.resources_data import (
    BUILTIN_RESOURCE_TABLE,
    EQUIVALENT_RESOURCES,
    NOT_RESOURCES,
    SUBRESOURCE_KINDS,
)
from policyeditor.engine.versions import DEFAULT_VERSION


@dataclass(frozen=True)
class ResourceInfo:
    """One REST resource of the API server: its GVK, plural name, scope and subresources."""

    group: str
    version: str
    kind: str
    plural: str
    namespaced: bool
    subresources: tuple[str, ...] = ()
    custom: bool = False  # served by a CustomResourceDefinition
    storage: bool = False  # the CRD's storage version (custom resources only)
    deprecated: bool = False

    @property
    def api_version(self) -> str:
        """The apiVersion string of the kind ("apps/v1", "v1")."""
        return f"{self.group}/{self.version}" if self.group else self.version

    def to_dict(self) -> dict[str, Any]:
        """JSON form for the API and the UI (custom resources add custom, storage, deprecated)."""
        out: dict[str, Any] = {
            "group": self.group,
            "version": self.version,
            "kind": self.kind,
            "plural": self.plural,
            "namespaced": self.namespaced,
            "subresources": list(self.subresources),
        }
        if self.custom:
            out.update(custom=True, storage=self.storage, deprecated=self.deprecated)
        return out


def guess_plural(kind: str) -> str:
    """The plural the API machinery would guess for a kind (meta.UnsafeGuessKindToResource)."""
    lower = kind.lower()
    if not lower:
        return ""
    if lower.endswith("s"):
        return lower + "es"
    if lower.endswith("y") and len(lower) > 1 and lower[-2] not in "aeiou":
        return lower[:-1] + "ies"
    return lower + "s"


def is_resource_schema(schema: dict[str, Any]) -> bool:
    properties = schema.get("properties") or {}
    return "metadata" in properties and "kind" in properties


@lru_cache(maxsize=16)
def _builtin_resources(version_key: str) -> tuple[ResourceInfo, ...]:
    defs = definitions_by_key(version_key)
    found: dict[tuple[str, str, str], ResourceInfo] = {}
    for (group, version, kind), name in gvk_index(version_key).items():
        if kind.endswith("List") or (group, kind) in NOT_RESOURCES:
            continue
        schema = defs.get(name) or {}
        if not is_resource_schema(schema):
            continue
        curated = BUILTIN_RESOURCE_TABLE.get((group, kind))
        if curated is None:
            continue
        plural, namespaced, subresources = curated
        found[(group, version, kind)] = ResourceInfo(
            group, version, kind, plural, namespaced, subresources
        )
    return tuple(found[key] for key in sorted(found))


def builtin_resources(k8s_version: str = DEFAULT_VERSION) -> list[ResourceInfo]:
    """Every built-in REST resource served (by schema) in a Kubernetes version, sorted by GVK."""
    return list(_builtin_resources(version_key(k8s_version)))


def custom_resources() -> list[ResourceInfo]:
    """The REST resources of the CRDs in force (layer.using), one per served version."""
    custom = layer.active()
    return list(custom.resources()) if custom is not None else []


def all_resources(k8s_version: str = DEFAULT_VERSION) -> list[ResourceInfo]:
    """Built-in resources, then those of the CRDs in force: what a resource picker lists."""
    return builtin_resources(k8s_version) + custom_resources()


def resource_for_kind(
    group: str, version: str, kind: str, k8s_version: str = DEFAULT_VERSION
) -> ResourceInfo | None:
    """The built-in resource of a GVK, or None for kinds the version does not know (CRDs)."""
    for info in _builtin_resources(version_key(k8s_version)):
        if info.group == (group or "") and info.version == version and info.kind == kind:
            return info
    curated = BUILTIN_RESOURCE_TABLE.get((group or "", kind))
    if curated is not None and (group or "", kind) not in NOT_RESOURCES:
        # A served kind at a version the schemas lack (e.g. an old beta): same plural and scope.
        plural, namespaced, subresources = curated
        return ResourceInfo(group or "", version, kind, plural, namespaced, subresources)
    for info in custom_resources():
        if info.group == (group or "") and info.version == version and info.kind == kind:
            return info
    return None


def kind_for_resource(
    group: str, version: str, resource: str, k8s_version: str = DEFAULT_VERSION
) -> ResourceInfo | None:
    """The built-in resource named by a GVR (plural), or None."""
    plural = resource.split("/", 1)[0]
    for info in _builtin_resources(version_key(k8s_version)):
        if info.group == (group or "") and info.version == version and info.plural == plural:
            return info
    for (table_group, kind), (
        table_plural,
        namespaced,
        subresources,
    ) in BUILTIN_RESOURCE_TABLE.items():
        if table_group == (group or "") and table_plural == plural:
            return ResourceInfo(table_group, version, kind, plural, namespaced, subresources)
    for info in custom_resources():
        if info.group == (group or "") and info.version == version and info.plural == plural:
            return info
    return None


def subresource_kind(
    group: str, version: str, kind: str, plural: str, subresource: str
) -> tuple[str, str, str]:
    """The (group, version, kind) of a subresource request's body (status: the parent's kind)."""
    if not subresource:
        return (group, version, kind)
    for key in ((group, plural, subresource), ("*", "*", subresource)):
        if key in SUBRESOURCE_KINDS:
            return SUBRESOURCE_KINDS[key]
    return (group, version, kind)


def parent_of_body_kind(group: str, version: str, kind: str) -> tuple[str, str, str, str] | None:
    """(group, version, plural, subresource) of the one subresource whose body is this kind."""
    # PodExecOptions -> ("", "v1", "pods", "exec"); None for kinds that are not subresource bodies
    # or are shared by several (Scale).
    found = [
        (parent_group, plural, sub)
        for (parent_group, plural, sub), body in SUBRESOURCE_KINDS.items()
        if body == (group or "", version, kind) and parent_group != "*"
    ]
    if len(found) != 1:
        return None
    parent_group, plural, sub = found[0]
    info = next(
        (i for (g, k), i in BUILTIN_RESOURCE_TABLE.items() if g == parent_group and i[0] == plural),
        None,
    )
    if info is None:
        return None
    return (parent_group, "v1", plural, sub)


def equivalent_resources(
    group: str, version: str, resource: str, k8s_version: str = DEFAULT_VERSION
) -> list[tuple[str, str, str]]:
    """Other (group, version, resource) names of the same stored resource, most preferred first."""
    # Every served version of the same group/resource is equivalent, plus the cross-group aliases
    # of `resources_data.EQUIVALENT_RESOURCES` (deployments in apps/v1 and extensions/v1beta1,
    # ...).
    me = (group or "", version, resource)
    found: list[tuple[str, str, str]] = []

    def add(candidate: tuple[str, str, str]) -> None:
        if candidate != me and candidate not in found:
            found.append(candidate)

    for info in _builtin_resources(version_key(k8s_version)):
        if info.group == me[0] and info.plural == resource:
            add((info.group, info.version, info.plural))
    for info in custom_resources():
        # Every served version of a CRD names the same stored resource.
        if info.group == me[0] and info.plural == resource:
            add((info.group, info.version, info.plural))
    for family in EQUIVALENT_RESOURCES:
        if any(g == me[0] and r == resource for g, _v, r in family):
            for candidate in family:
                add(candidate)
    return found
