"""CustomResourceDefinitions (apiextensions.k8s.io/v1) as a schema source: parse, check, register.

The checks are the parts of kube-apiserver's CRD validation that decide whether a CRD can be used
at all (kubernetes/kubernetes staging/src/k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/
validation/validation.go, ValidateCustomResourceDefinition; pkg/apiserver/schema/validation.go,
ValidateStructural) and the naming controller's conflicts (pkg/controller/status/
naming_controller.go), in their words. The schemas handed out are the ones kube-apiserver
publishes for a CRD (pkg/controller/openapi/builder/builder.go): apiVersion, kind and metadata
(ObjectMeta) added at the root and on every x-kubernetes-embedded-resource.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from policyeditor.engine import apimachinery
from policyeditor.engine.errors import FieldError, InputError
from policyeditor.engine.schemas.objects import compile_pattern
from policyeditor.engine.schemas.resources import ResourceInfo

CRD_API_VERSION = "apiextensions.k8s.io/v1"
CRD_KIND = "CustomResourceDefinition"
# etcd's default request limit (--max-request-bytes, 1.5 MiB): a larger CRD is never stored.
MAX_CRD_BYTES = 1572864
MAX_CRDS = 500
_OBJECT_META = {"$ref": "#/$defs/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}
_SCOPES = ("Cluster", "Namespaced")
_SCHEMA_FIELDS_FORBIDDEN = ("$ref", "$schema", "definitions", "id", "patternProperties")


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


# ---------------------------------------------------------------- schema checks


def _types(schema: dict[str, Any]) -> str:
    raw = schema.get("type")
    return raw if isinstance(raw, str) else ""


def _structural(schema: Any, path: str, level: str, errors: list[FieldError]) -> None:
    """The structural-schema invariants a CRD schema must keep (schema/validation.go)."""
    if not isinstance(schema, dict):
        errors.append(apimachinery.invalid(path, schema, "must be an object"))
        return
    for name in _SCHEMA_FIELDS_FORBIDDEN:
        if name in schema:
            errors.append(apimachinery.forbidden(apimachinery.child(path, name), "must be empty"))
    kind = _types(schema)
    int_or_string = bool(schema.get("x-kubernetes-int-or-string"))
    preserve = bool(schema.get("x-kubernetes-preserve-unknown-fields"))
    embedded = bool(schema.get("x-kubernetes-embedded-resource"))
    if kind == "array" and not isinstance(schema.get("items"), dict):
        errors.append(apimachinery.required(f"{path}.items", "must be specified"))
    if isinstance(schema.get("items"), dict):
        _structural(schema["items"], f"{path}.items", "item", errors)
    properties = schema.get("properties")
    if properties is not None and not isinstance(properties, dict):
        errors.append(apimachinery.invalid(f"{path}.properties", properties, "must be an object"))
        properties = None
    for key, sub in sorted((properties or {}).items()):
        _structural(sub, f"{path}.properties[{key}]", "field", errors)
    additional = schema.get("additionalProperties")
    if additional is not None and additional is not False:
        if level == "root":
            errors.append(
                apimachinery.forbidden(
                    f"{path}.additionalProperties", "must not be used at the root"
                )
            )
        if properties:
            errors.append(
                apimachinery.forbidden(
                    f"{path}.additionalProperties",
                    "additionalProperties and properties are mutual exclusive",
                )
            )
        if isinstance(additional, dict):
            _structural(additional, f"{path}.additionalProperties", "field", errors)
    if int_or_string and preserve:
        errors.append(
            apimachinery.invalid(
                f"{path}.x-kubernetes-preserve-unknown-fields",
                True,
                "must be false if x-kubernetes-int-or-string is true",
            )
        )
    if embedded and kind != "object":
        if not kind:
            errors.append(
                apimachinery.required(
                    f"{path}.type", "must be object if x-kubernetes-embedded-resource is true"
                )
            )
        else:
            errors.append(
                apimachinery.invalid(
                    f"{path}.type", kind, "must be object if x-kubernetes-embedded-resource is true"
                )
            )
    elif not kind and not int_or_string and not preserve:
        where = {
            "root": "must not be empty at the root",
            "item": "must not be empty for specified array items",
            "field": "must not be empty for specified object fields",
        }[level]
        errors.append(apimachinery.required(f"{path}.type", where))
    if level == "root" and kind and kind != "object":
        errors.append(apimachinery.invalid(f"{path}.type", kind, "must be object at the root"))
    list_type = schema.get("x-kubernetes-list-type")
    if list_type is not None:
        if list_type not in ("atomic", "set", "map"):
            errors.append(
                apimachinery.not_supported(
                    f"{path}.x-kubernetes-list-type", list_type, ("atomic", "set", "map")
                )
            )
        elif kind != "array":
            errors.append(
                apimachinery.invalid(
                    f"{path}.x-kubernetes-list-type",
                    list_type,
                    "must only be used if type is array",
                )
            )
    keys = schema.get("x-kubernetes-list-map-keys")
    if list_type == "map" and not keys:
        errors.append(
            apimachinery.required(
                f"{path}.x-kubernetes-list-map-keys",
                "must not be empty if x-kubernetes-list-type is map",
            )
        )
    if keys and list_type != "map":
        errors.append(
            apimachinery.forbidden(
                f"{path}.x-kubernetes-list-map-keys",
                "must be empty if x-kubernetes-list-type is not map",
            )
        )
    if list_type == "map" and isinstance(keys, list) and isinstance(schema.get("items"), dict):
        item_props = schema["items"].get("properties") or {}
        for position, key in enumerate(keys):
            if key not in item_props:
                errors.append(
                    apimachinery.invalid(
                        f"{path}.x-kubernetes-list-map-keys[{position}]",
                        key,
                        "entries must all be names of item properties",
                    )
                )
    pattern = schema.get("pattern")
    if isinstance(pattern, str) and compile_pattern(pattern) is None:
        errors.append(
            apimachinery.invalid(
                f"{path}.pattern", pattern, "must be a valid regular expression, but isn't"
            )
        )
    map_type = schema.get("x-kubernetes-map-type")
    if map_type is not None and map_type not in ("granular", "atomic"):
        errors.append(
            apimachinery.not_supported(
                f"{path}.x-kubernetes-map-type", map_type, ("granular", "atomic")
            )
        )


def _prepare(schema: dict[str, Any], *, root: bool) -> dict[str, Any]:
    """The published form: apiVersion, kind and metadata on the root and on embedded resources."""
    # kubernetes/kubernetes staging/src/k8s.io/apiextensions-apiserver/pkg/controller/openapi/
    # builder/builder.go (addTypeMetaProperties, addEmbeddedProperties).
    out = dict(schema)
    if root or schema.get("x-kubernetes-embedded-resource"):
        properties = dict(out.get("properties") or {})
        meta = properties.get("metadata")
        if not isinstance(meta, dict) or "properties" not in meta or root:
            merged = dict(_OBJECT_META)
            if isinstance(meta, dict) and isinstance(meta.get("description"), str):
                merged["description"] = meta["description"]
            properties["metadata"] = merged
        properties.setdefault("apiVersion", {"type": "string"})
        properties.setdefault("kind", {"type": "string"})
        out["properties"] = properties
    if isinstance(out.get("properties"), dict):
        out["properties"] = {
            k: _prepare(v, root=False) if isinstance(v, dict) and not k.startswith("$") else v
            for k, v in out["properties"].items()
        }
    if isinstance(out.get("items"), dict):
        out["items"] = _prepare(out["items"], root=False)
    if isinstance(out.get("additionalProperties"), dict):
        out["additionalProperties"] = _prepare(out["additionalProperties"], root=False)
    return out


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
            _structural(schema, schema_path, "root", errors)
            if len(errors) > before:
                schema = {}
        subresources = _subresources(entry, f"{path}.subresources", errors)
        versions.append(
            CrdVersion(
                name=name,
                served=entry.get("served") is True,
                storage=entry.get("storage") is True,
                schema=_prepare(schema, root=True) if isinstance(schema, dict) else {},
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
