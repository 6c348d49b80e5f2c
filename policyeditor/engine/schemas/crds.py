"""CustomResourceDefinitions (apiextensions.k8s.io/v1): parsed and checked as kube-apiserver does.

The checks are the parts of kube-apiserver's CRD validation that decide whether a CRD can be used
at all (kubernetes/kubernetes staging/src/k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/
validation/validation.go, ValidateCustomResourceDefinition), in its words; each version's schema is
checked and published by crd_schema, and bundles of CRDs are loaded by crd_registry.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from policyeditor.engine import apimachinery
from policyeditor.engine.errors import FieldError, InputError
from policyeditor.engine.schemas.crd_schema import check_structural, published_schema
from policyeditor.engine.schemas.resources import ResourceInfo

CRD_API_VERSION = "apiextensions.k8s.io/v1"
CRD_KIND = "CustomResourceDefinition"
# etcd's default request limit (--max-request-bytes, 1.5 MiB): a larger CRD is never stored.
MAX_CRD_BYTES = 1572864
_SCOPES = ("Cluster", "Namespaced")


# Compiles a CRD document's x-kubernetes-validations rules, answering their field errors. The CEL
# package (a layer above this one) installs it when imported (cel/__init__.py); a CRD with rules
# read before that is refused rather than accepted unchecked.
RuleChecker = Callable[[Any], list[FieldError]]
_RULE_CHECKER: list[RuleChecker] = []


def install_rule_checker(checker: RuleChecker) -> None:
    """Set the function that compiles CRD validation rules (the CEL package's)."""
    _RULE_CHECKER[:] = [checker]


def _has_rules(value: Any) -> bool:
    if isinstance(value, dict):
        return "x-kubernetes-validations" in value or any(_has_rules(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_rules(v) for v in value)
    return False


class CrdError(InputError):
    """CRDs that kube-apiserver would refuse; `errors` are its field errors, str() its message."""

    def __init__(self, message: str, errors: Sequence[FieldError] = ()) -> None:
        super().__init__(message)
        self.errors = list(errors)


@dataclass(frozen=True)
class CrdVersion:
    """One entry of spec.versions: its prepared schema and subresources."""

    name: str
    served: bool
    storage: bool
    schema: dict[str, Any]
    subresources: tuple[str, ...] = ()
    deprecated: bool = False
    deprecation_warning: str = ""


@dataclass(frozen=True)
class CustomResourceDefinition:
    """A checked CRD: names, scope and versions."""

    name: str
    group: str
    kind: str
    plural: str
    singular: str
    scope: str
    versions: tuple[CrdVersion, ...]
    source: dict[str, Any] = field(compare=False, repr=False)

    @property
    def namespaced(self) -> bool:
        """True for Namespaced CRDs."""
        return self.scope == "Namespaced"

    @property
    def storage_version(self) -> str:
        """The name of the version marked storage."""
        return next(v.name for v in self.versions if v.storage)

    def version(self, name: str) -> CrdVersion | None:
        """The served version called `name`, or None."""
        return next((v for v in self.versions if v.name == name and v.served), None)

    def resources(self) -> list[ResourceInfo]:
        """One ResourceInfo per served version, the storage version marked."""
        return [
            ResourceInfo(
                self.group,
                v.name,
                self.kind,
                self.plural,
                self.namespaced,
                v.subresources,
                custom=True,
                storage=v.storage,
                deprecated=v.deprecated,
            )
            for v in self.versions
            if v.served
        ]


# ---------------------------------------------------------------- CRD checks


def _obj(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _subresources(entry: dict[str, Any], path: str, errors: list[FieldError]) -> tuple[str, ...]:
    raw = entry.get("subresources")
    if raw is None:
        return ()
    if not isinstance(raw, dict):
        errors.append(apimachinery.invalid(path, raw, "must be an object"))
        return ()
    found = []
    if "status" in raw:
        found.append("status")
    scale = raw.get("scale")
    if scale is not None:
        if not isinstance(scale, dict) or not scale.get("specReplicasPath"):
            errors.append(apimachinery.required(f"{path}.scale.specReplicasPath", ""))
        elif not isinstance(scale.get("statusReplicasPath"), str):
            errors.append(apimachinery.required(f"{path}.scale.statusReplicasPath", ""))
        found.append("scale")
    return tuple(sorted(found))


def _check_versions(spec: dict[str, Any], errors: list[FieldError]) -> list[CrdVersion]:
    raw = spec.get("versions")
    if not isinstance(raw, list) or not raw:
        errors.append(apimachinery.required("spec.versions", "must have at least one version"))
        return []
    versions: list[CrdVersion] = []
    seen: set[str] = set()
    storage = 0
    for position, entry in enumerate(raw):
        path = f"spec.versions[{position}]"
        if not isinstance(entry, dict):
            errors.append(apimachinery.invalid(path, entry, "must be an object"))
            continue
        name = _str(entry.get("name"))
        if not name:
            errors.append(apimachinery.required(f"{path}.name", ""))
        else:
            for problem in apimachinery.is_dns1035_label(name):
                errors.append(apimachinery.invalid(f"{path}.name", name, problem))
            if name in seen:
                errors.append(
                    apimachinery.invalid("spec.versions", name, "must contain unique version names")
                )
            seen.add(name)
        if entry.get("storage") is True:
            storage += 1
        schema_path = f"{path}.schema.openAPIV3Schema"
        holder = entry.get("schema")
        schema = holder.get("openAPIV3Schema") if isinstance(holder, dict) else None
        if schema is None:
            errors.append(apimachinery.required(schema_path, "schemas are required"))
            schema = {}
        else:
            before = len(errors)
            check_structural(schema, schema_path, "root", errors)
            if len(errors) > before:
                schema = {}
        subresources = _subresources(entry, f"{path}.subresources", errors)
        versions.append(
            CrdVersion(
                name=name,
                served=entry.get("served") is True,
                storage=entry.get("storage") is True,
                schema=published_schema(schema, root=True) if isinstance(schema, dict) else {},
                subresources=subresources,
                deprecated=entry.get("deprecated") is True,
                deprecation_warning=_str(entry.get("deprecationWarning")),
            )
        )
    if storage != 1:
        errors.append(
            apimachinery.invalid(
                "spec.versions",
                [v.name for v in versions],
                "must have exactly one version marked as storage version",
            )
        )
    return versions


def parse_crd(document: Any) -> CustomResourceDefinition:
    """A checked CRD; raises CrdError with kube-apiserver's message when it would refuse it."""
    if not isinstance(document, dict):
        raise CrdError("a CustomResourceDefinition must be an object")
    api_version, kind = document.get("apiVersion"), document.get("kind")
    if kind != CRD_KIND or api_version != CRD_API_VERSION:
        if kind == CRD_KIND and isinstance(api_version, str):
            # apiextensions.k8s.io/v1beta1 is no longer served (removed in 1.22).
            raise CrdError(f'no matches for kind "{CRD_KIND}" in version "{api_version}"')
        raise CrdError(
            f"expected a {CRD_API_VERSION} {CRD_KIND}, got "
            f"{_str(api_version) or '(no apiVersion)'} {_str(kind) or '(no kind)'}"
        )
    size = len(json.dumps(document, separators=(",", ":"), default=str))
    meta = _obj(document.get("metadata"))
    name = _str(meta.get("name"))
    if size > MAX_CRD_BYTES:
        raise CrdError(
            f"etcdserver: request is too large (the CustomResourceDefinition {name or ''} is "
            f"{size} bytes; etcd stores at most {MAX_CRD_BYTES})"
        )
    spec = _obj(document.get("spec"))
    names = _obj(spec.get("names"))
    errors: list[FieldError] = []
    group, plural = _str(spec.get("group")), _str(names.get("plural"))
    if not name:
        errors.append(apimachinery.required("metadata.name", "name or generateName is required"))
    elif name != f"{plural}.{group}":
        errors.append(
            apimachinery.invalid("metadata.name", name, 'must be spec.names.plural+"."+spec.group')
        )
    if not group:
        errors.append(apimachinery.required("spec.group", ""))
    elif "." not in group:
        errors.append(
            apimachinery.invalid("spec.group", group, "should be a domain with at least one dot")
        )
    else:
        for problem in apimachinery.is_dns1123_subdomain(group):
            errors.append(apimachinery.invalid("spec.group", group, problem))
    scope = spec.get("scope")
    if not scope:
        errors.append(apimachinery.required("spec.scope", ""))
    elif scope not in _SCOPES:
        errors.append(apimachinery.not_supported("spec.scope", scope, _SCOPES))
    kind_name, singular = _str(names.get("kind")), _str(names.get("singular"))
    if not plural:
        errors.append(apimachinery.required("spec.names.plural", ""))
    elif apimachinery.is_dns1035_label(plural):
        errors.append(
            apimachinery.invalid(
                "spec.names.plural", plural, apimachinery.is_dns1035_label(plural)[0]
            )
        )
    if not kind_name:
        errors.append(apimachinery.required("spec.names.kind", ""))
    versions = _check_versions(spec, errors)
    if not errors and _has_rules(spec.get("versions")):
        if not _RULE_CHECKER:
            raise CrdError(
                "x-kubernetes-validations rules cannot be compiled: the CEL engine is not loaded"
            )
        errors += _RULE_CHECKER[0](document)
    if errors:
        shown = ", ".join(str(e) for e in errors)
        raise CrdError(
            f'CustomResourceDefinition.apiextensions.k8s.io "{name}" is invalid: [{shown}]'
            if len(errors) > 1
            else f'CustomResourceDefinition.apiextensions.k8s.io "{name}" is invalid: {shown}',
            errors,
        )
    return CustomResourceDefinition(
        name=name,
        group=group,
        kind=kind_name,
        plural=plural,
        singular=singular or kind_name.lower(),
        scope=str(scope),
        versions=tuple(versions),
        source=document,
    )
