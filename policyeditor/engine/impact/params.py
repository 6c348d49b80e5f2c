"""The dump's param objects: those of a paramKind of the run's policies, and which a batch needs.

The API server reads a binding's params from its informer of the paramKind (every object of that
kind in the cluster), so impact analysis collects, before evaluating, every object of the dump
whose apiVersion and kind are a paramKind of a policy of the revision or the baseline. The draft's
own documents of those kinds count too, as the objects its author will apply: where the draft and
the dump hold the same object (apiVersion, kind, namespace, name), the draft's is the one used.
"""

from __future__ import annotations

import marshal
from collections.abc import Iterable
from typing import Any

from policyeditor.engine.impact.limits import DumpError
from policyeditor.engine.objects import (
    ADMISSION_GROUP,
    BINDING_KINDS,
    POLICY_KINDS,
    kind_of,
    name_of,
    namespace_of,
    spec_of,
)

__all__ = [
    "MAX_PARAM_BYTES",
    "MAX_PARAM_OBJECTS",
    "ParamCollector",
    "ParamIndex",
    "param_kinds",
    "without_drafted",
]

# What a run holds of param objects at once (every chunk task loads them all): far past the few
# ConfigMaps per namespace of the usual patterns, well inside a worker's memory.
MAX_PARAM_OBJECTS = 10_000
MAX_PARAM_BYTES = 64 * 1024 * 1024  # as marshal packs them (what a run stores and a batch sends)
MARSHAL_FORMAT = 4

ParamKind = tuple[str, str]  # (apiVersion, kind)


def _admission(doc: Any, kinds: tuple[str, ...]) -> bool:
    api_version = doc.get("apiVersion") if isinstance(doc, dict) else None
    return (
        kind_of(doc) in kinds
        and isinstance(api_version, str)
        and api_version.split("/")[0] == ADMISSION_GROUP
    )


def param_kinds(*sides: Iterable[dict[str, Any]] | None) -> frozenset[ParamKind]:
    """The paramKinds (apiVersion, kind) of the policies among these lists of documents."""
    found = set()
    for documents in sides:
        for doc in documents or ():
            param_kind = spec_of(doc).get("paramKind") if _admission(doc, POLICY_KINDS) else None
            if isinstance(param_kind, dict):
                api_version, kind = param_kind.get("apiVersion"), param_kind.get("kind")
                if isinstance(api_version, str) and isinstance(kind, str) and kind:
                    found.add((api_version, kind))
    return frozenset(found)


def _ref_namespaces(*sides: Iterable[dict[str, Any]] | None) -> frozenset[str]:
    """The namespaces the bindings' paramRefs name: objects anywhere may need params there."""
    found = set()
    for documents in sides:
        for doc in documents or ():
            ref = spec_of(doc).get("paramRef") if _admission(doc, BINDING_KINDS) else None
            namespace = ref.get("namespace") if isinstance(ref, dict) else None
            if isinstance(namespace, str) and namespace:
                found.add(namespace)
    return frozenset(found)


def _kind(obj: dict[str, Any]) -> ParamKind:
    api_version = obj.get("apiVersion")
    return (api_version if isinstance(api_version, str) else "", kind_of(obj))


def _key(obj: dict[str, Any]) -> tuple[str, str, str, str]:
    return (*_kind(obj), namespace_of(obj), name_of(obj))


class ParamCollector:
    """Collects the objects of the param kinds as a dump is read, up to the limits."""

    def __init__(
        self,
        kinds: Iterable[ParamKind],
        *,
        max_objects: int | None = None,
        max_bytes: int | None = None,
    ) -> None:
        self.kinds = frozenset(kinds)
        # The module's limits as they are when collecting starts (a test lowers them).
        self.max_objects = MAX_PARAM_OBJECTS if max_objects is None else max_objects
        self.max_bytes = MAX_PARAM_BYTES if max_bytes is None else max_bytes
        self.objects: list[dict[str, Any]] = []
        self.bytes = 0

    def add(self, obj: dict[str, Any]) -> None:
        """Keep `obj` if it is of a param kind; a DumpError past the limits."""
        if (obj.get("apiVersion"), obj.get("kind")) not in self.kinds:
            return
        what = f"{obj.get('kind')} ({obj.get('apiVersion')})"
        if len(self.objects) >= self.max_objects:
            raise DumpError(
                f"the dump holds more than {self.max_objects} param objects (the paramKinds of "
                f"the policies) with its {what} objects; a run takes at most {self.max_objects}"
            )
        self.bytes += len(marshal.dumps(obj, MARSHAL_FORMAT))
        if self.bytes > self.max_bytes:
            mib = self.max_bytes // (1024 * 1024)
            raise DumpError(
                f"the dump's param objects (the paramKinds of the policies) are larger than "
                f"{mib} MiB with its {what} objects; a run takes at most {mib} MiB of them"
            )
        self.objects.append(obj)


class ParamIndex:
    """The dump's param objects by namespace, to send each batch only those it can need."""

    def __init__(self, params: list[dict[str, Any]], *sides: list[dict[str, Any]] | None) -> None:
        self.refs = _ref_namespaces(*sides)
        self.by_namespace: dict[str, list[dict[str, Any]]] = {}
        # One namespaced object per kind: a custom kind without its CRD in force is known, and
        # known to be namespaced, only from its objects (admission/params.py _param_scope), so a
        # batch that needs none of them must still see one (it is in a namespace no lookup of
        # the batch reads, so it is never selected).
        self.witnesses: dict[ParamKind, dict[str, Any]] = {}
        for obj in params:
            namespace = namespace_of(obj)
            self.by_namespace.setdefault(namespace, []).append(obj)
            if namespace:
                self.witnesses.setdefault(_kind(obj), obj)

    def for_names(self, names: Iterable[str]) -> list[dict[str, Any]]:
        """The param objects a batch of objects in these namespaces can need."""
        found = list(self.by_namespace.get("", ()))
        for namespace in sorted((set(names) | self.refs) - {""}):
            found += self.by_namespace.get(namespace, ())
        kinds = {_kind(obj) for obj in found if namespace_of(obj)}
        found += [obj for kind, obj in self.witnesses.items() if kind not in kinds]
        return found


def without_drafted(
    params: list[dict[str, Any]], documents: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The dump's param objects but those the draft holds too (the draft's copy wins)."""
    if not params:
        return params
    drafted = {_key(doc) for doc in documents if isinstance(doc, dict)}
    return [obj for obj in params if _key(obj) not in drafted]
