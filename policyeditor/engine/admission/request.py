"""The admission request a policy sees: built from objects the way kube-apiserver fills it in."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from policyeditor.engine import schemas
from policyeditor.engine.errors import InputError
from policyeditor.engine.versions import DEFAULT_VERSION

OPERATIONS = ("CREATE", "UPDATE", "DELETE", "CONNECT")

# The options object the API server hands to admission for each operation (request.options).
_OPTIONS_KIND = {"CREATE": "CreateOptions", "UPDATE": "UpdateOptions", "DELETE": "DeleteOptions"}

# camelCase override key -> dataclass field.
_OVERRIDE_FIELDS = {
    "operation": "operation",
    "kind": "kind",
    "resource": "resource",
    "subResource": "sub_resource",
    "requestKind": "request_kind",
    "requestResource": "request_resource",
    "requestSubResource": "request_sub_resource",
    "name": "name",
    "namespace": "namespace",
    "userInfo": "user_info",
    "dryRun": "dry_run",
    "options": "options",
    "object": "object",
    "oldObject": "old_object",
}
# Accepted but not part of what CEL sees (the API server strips uid from `request`).
_IGNORED_OVERRIDES = {"uid"}


def split_api_version(api_version: str) -> tuple[str, str]:
    """("apps", "v1") for "apps/v1", ("", "v1") for "v1"."""
    if "/" in api_version:
        group, _, version = api_version.partition("/")
        return group, version
    return "", api_version


def _gvk_of(obj: dict[str, Any] | None) -> dict[str, str]:
    if not isinstance(obj, dict):
        return {"group": "", "version": "", "kind": ""}
    group, version = split_api_version(str(obj.get("apiVersion") or ""))
    return {"group": group, "version": version, "kind": str(obj.get("kind") or "")}


def _metadata(obj: Any) -> dict[str, Any]:
    metadata = obj.get("metadata") if isinstance(obj, dict) else None
    return metadata if isinstance(metadata, dict) else {}


def _user_info(raw: dict[str, Any] | None) -> dict[str, Any]:
    info = dict(raw or {})
    info.setdefault("username", "")
    info.setdefault("uid", "")
    info["groups"] = list(info.get("groups") or [])
    info["extra"] = {str(k): list(v or []) for k, v in dict(info.get("extra") or {}).items()}
    return info


@dataclass
class AdmissionRequest:
    """What kube-apiserver hands the admission plugins: the `request` variable plus the objects."""

    operation: str
    object: dict[str, Any] | None
    old_object: dict[str, Any] | None
    kind: dict[str, Any]
    resource: dict[str, Any]
    sub_resource: str
    request_kind: dict[str, Any]
    request_resource: dict[str, Any]
    request_sub_resource: str
    name: str
    namespace: str
    user_info: dict[str, Any] = field(default_factory=lambda: _user_info(None))
    dry_run: bool = False
    options: dict[str, Any] | None = None

    @classmethod
    def build(
        cls,
        *,
        object: dict[str, Any] | None = None,  # noqa: A002 - the Kubernetes field name
        old_object: dict[str, Any] | None = None,
        operation: str | None = None,
        user_info: dict[str, Any] | None = None,
        overrides: dict[str, Any] | None = None,
        version: str = DEFAULT_VERSION,
    ) -> AdmissionRequest:
        """Infer kind, resource (plural), namespace, name and operation from the objects."""
        # The operation is CREATE with only `object`, UPDATE with both, DELETE with only
        # `old_object`. A namespaced object without metadata.namespace is taken to be in
        # "default", as kubectl sends it. `overrides` are AdmissionRequest fields in camelCase
        # (kind, resource, subResource, namespace, name, dryRun, options, userInfo, requestKind,
        # ...). Raises InputError when the overrides or objects have the wrong shape.
        overrides = dict(overrides or {})
        unknown = sorted(set(overrides) - set(_OVERRIDE_FIELDS) - _IGNORED_OVERRIDES)
        if unknown:
            raise InputError(
                f"unknown request field(s): {', '.join(unknown)} "
                f"(known: {', '.join(sorted(_OVERRIDE_FIELDS))})"
            )
        object = overrides.pop("object", object)
        old_object = overrides.pop("oldObject", old_object)
        for label, value in (("object", object), ("oldObject", old_object)):
            if value is not None and not isinstance(value, dict):
                raise InputError(f"{label} must be a mapping, not {type(value).__name__}")
        op = str(overrides.pop("operation", None) or operation or "").upper()
        if not op:
            if object is not None and old_object is not None:
                op = "UPDATE"
            elif old_object is not None:
                op = "DELETE"
            else:
                op = "CREATE"
        if op not in OPERATIONS:
            raise InputError(
                f'operation: Unsupported value: "{op}": supported values: '
                + ", ".join(f'"{o}"' for o in OPERATIONS)
            )
        source = object if object is not None else old_object
        if op == "CONNECT" and old_object is not None and object is not None:
            source = old_object

        kind = _check_gvk(overrides.pop("kind", None), "kind", ("group", "version", "kind"))
        sub_resource = str(overrides.pop("subResource", "") or "")
        kind_given = kind is not None
        if kind is None:
            kind = _gvk_of(source)
        resource = _check_gvk(
            overrides.pop("resource", None), "resource", ("group", "version", "resource")
        )
        info = None
        if resource is None and not kind_given and not sub_resource:
            parent = schemas.parent_of_body_kind(kind["group"], kind["version"], kind["kind"])
            if parent is not None:
                # A subresource body such as PodExecOptions: the request is for pods/exec.
                resource = {"group": parent[0], "version": parent[1], "resource": parent[2]}
                sub_resource = parent[3]
                info = schemas.kind_for_resource(parent[0], parent[1], parent[2], version)
        if resource is None:
            info = schemas.resource_for_kind(kind["group"], kind["version"], kind["kind"], version)
            plural = info.plural if info else schemas.guess_plural(kind["kind"])
            resource = {"group": kind["group"], "version": kind["version"], "resource": plural}
        else:
            info = schemas.kind_for_resource(
                resource["group"], resource["version"], resource["resource"], version
            )
        if sub_resource and not kind_given:
            group, ver, body = schemas.subresource_kind(
                kind["group"], kind["version"], kind["kind"], resource["resource"], sub_resource
            )
            kind = {"group": group, "version": ver, "kind": body}

        meta = _metadata(source)
        name = str(overrides.pop("name", None) or meta.get("name") or "")
        namespaced = info.namespaced if info is not None else True
        if "namespace" in overrides:
            namespace = str(overrides.pop("namespace") or "")
        elif resource["resource"] == "namespaces" and not sub_resource and not kind_given:
            # The API server reads the namespace from the URL: /namespaces/<name> names it for
            # everything but a create (POST /namespaces).
            namespace = "" if op == "CREATE" else name
        elif namespaced:
            namespace = str(meta.get("namespace") or "default")
        else:
            namespace = ""

        request_kind = _check_gvk(
            overrides.pop("requestKind", None), "requestKind", ("group", "version", "kind")
        )
        request_resource = _check_gvk(
            overrides.pop("requestResource", None),
            "requestResource",
            ("group", "version", "resource"),
        )
        request_sub = overrides.pop("requestSubResource", None)
        user = overrides.pop("userInfo", None)
        if user is not None and not isinstance(user, dict):
            raise InputError("userInfo must be a mapping with username, groups, ...")
        dry_run = bool(overrides.pop("dryRun", False))
        if "options" in overrides:
            options = overrides.pop("options")
            if options is not None and not isinstance(options, dict):
                raise InputError("options must be a mapping")
        elif op in _OPTIONS_KIND:
            options = {"apiVersion": "meta.k8s.io/v1", "kind": _OPTIONS_KIND[op]}
        else:
            options = None
        return cls(
            operation=op,
            object=object,
            old_object=old_object,
            kind=kind,
            resource=resource,
            sub_resource=sub_resource,
            request_kind=request_kind or dict(kind),
            request_resource=request_resource or dict(resource),
            request_sub_resource=str(request_sub if request_sub is not None else sub_resource),
            name=name,
            namespace=namespace,
            user_info=_user_info(user if user is not None else user_info),
            dry_run=dry_run,
            options=options,
        )

    @property
    def is_namespaced(self) -> bool:
        """True when the request carries a namespace."""
        return bool(self.namespace)

    def with_objects(self, obj: Any, old_object: Any) -> AdmissionRequest:
        """A copy with another object and oldObject (defaulted, mutated); the rest is shared."""
        # Field by field: copy.copy's reduce protocol costs more than the rest of a defaulting pass.
        twin = object.__new__(type(self))
        twin.__dict__.update(self.__dict__)
        twin.object, twin.old_object = obj, old_object
        return twin

    def with_match(self, kind: dict[str, Any], resource: dict[str, Any]) -> AdmissionRequest:
        """A copy seen through an equivalent matched kind/resource (matchPolicy Equivalent)."""
        # The API server converts object and oldObject to the matched version; only the apiVersion
        # is rewritten here (field-level conversions between versions are not modelled).
        twin = copy.copy(self)
        twin.kind = dict(kind)
        twin.resource = dict(resource)
        group, version = kind.get("group", ""), kind.get("version", "")
        api_version = f"{group}/{version}" if group else version
        for attr in ("object", "old_object"):
            obj = getattr(self, attr)
            if isinstance(obj, dict) and obj.get("kind") == kind.get("kind"):
                setattr(twin, attr, {**obj, "apiVersion": api_version})
        return twin

    def to_cel(self) -> dict[str, Any]:
        """The `request` CEL variable (no uid, object or oldObject, as the API server builds it)."""
        return {
            "kind": dict(self.kind),
            "resource": dict(self.resource),
            "subResource": self.sub_resource,
            "requestKind": dict(self.request_kind),
            "requestResource": dict(self.request_resource),
            "requestSubResource": self.request_sub_resource,
            "name": self.name,
            "namespace": self.namespace,
            "operation": self.operation,
            "userInfo": _copied(self.user_info),
            "dryRun": self.dry_run,
            "options": _copied(self.options),
        }

    def to_dict(self) -> dict[str, Any]:
        """JSON form (AdmissionReview request style, camelCase, objects included)."""
        data = self.to_cel()
        data["object"] = self.object
        data["oldObject"] = self.old_object
        return data


_SCALARS = (str, int, float, bool, type(None))


def _copied(value: Any) -> Any:
    """A deep copy of JSON-shaped data (much cheaper than copy.deepcopy, which it falls back to)."""
    kind = type(value)
    # Scalar members are taken as they are, without a call per member.
    if kind is dict:
        return {k: v if type(v) in _SCALARS else _copied(v) for k, v in value.items()}
    if kind is list:
        return [v if type(v) in _SCALARS else _copied(v) for v in value]
    if kind in _SCALARS:
        return value
    return copy.deepcopy(value)


def _check_gvk(value: Any, label: str, keys: tuple[str, str, str]) -> dict[str, Any] | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise InputError(f"{label} must be a mapping with {', '.join(keys)}")
    return {key: str(value.get(key) or "") for key in keys}
