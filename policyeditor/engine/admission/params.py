"""Param objects for a (policy, binding): paramKind + paramRef resolved against cluster objects.

Mirrors kubernetes/kubernetes staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/generic/
policy_dispatcher.go, CollectParams: name or selector lookup, namespace rules for namespaced/cluster-scoped param kinds,
parameterNotFoundAction, and configuration errors with the API server's wording.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from policyeditor.engine import schemas
from policyeditor.engine.admission import selectors
from policyeditor.engine.admission.request import AdmissionRequest, split_api_version
from policyeditor.engine.jsontypes import list_at, object_at
from policyeditor.engine.versions import DEFAULT_VERSION


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


@dataclass
class ParamSelection:
    """The params to evaluate with (each a separate evaluation), or the configuration error."""

    params: list[Any] = field(default_factory=list)
    error: str = ""
    note: str = ""  # why nothing is evaluated (parameterNotFoundAction: Allow)


def _meta(obj: dict[str, Any]) -> dict[str, Any]:
    meta = obj.get("metadata")
    return meta if isinstance(meta, dict) else {}


def param_label(param: Any) -> str | None:
    """ "namespace/name" (or "name") of a param object, None for the null param."""
    if not isinstance(param, dict):
        return None
    meta = _meta(param)
    name = str(meta.get("name") or "")
    namespace = str(meta.get("namespace") or "")
    return f"{namespace}/{name}" if namespace else name or "<unnamed>"


def _gvk_text(api_version: str, kind: str) -> str:
    group, version = split_api_version(api_version)
    return f"{group}/{version}, Kind={kind}"


def _param_scope(
    api_version: str, kind: str, resources: list[dict[str, Any]], version: str
) -> tuple[bool, bool | None]:
    """(known, namespaced): built-in kinds from the schemas, CRDs from definitions or objects."""
    group, ver = split_api_version(api_version)
    info = schemas.resource_for_kind(group, ver, kind, version)
    if info is not None:
        return True, info.namespaced
    namespaced: bool | None = None
    known = False
    for obj in resources:
        if not isinstance(obj, dict):
            continue
        if obj.get("kind") == "CustomResourceDefinition":
            spec = object_at(obj, "spec")
            names = object_at(spec, "names")
            raw_versions = list_at(spec, "versions")
            versions = [v.get("name") for v in raw_versions if isinstance(v, dict)]
            if spec.get("group") == group and names.get("kind") == kind and ver in versions:
                return True, spec.get("scope", "Namespaced") == "Namespaced"
        if obj.get("apiVersion") == api_version and obj.get("kind") == kind:
            known = True
            if _meta(obj).get("namespace"):
                namespaced = True
            elif namespaced is None:
                namespaced = False
    return known, namespaced


def _candidates(
    api_version: str, kind: str, resources: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    found = []
    for obj in resources:
        if not isinstance(obj, dict):
            continue
        if obj.get("kind") == kind and obj.get("apiVersion") == api_version:
            found.append(obj)
    return sorted(
        found, key=lambda o: (str(_meta(o).get("namespace") or ""), str(_meta(o).get("name") or ""))
    )


def _with_type_meta(obj: dict[str, Any], api_version: str, kind: str) -> dict[str, Any]:
    # Native param objects come from a typed informer without TypeMeta; the plugin fills it in.
    out = copy.deepcopy(obj)
    out.setdefault("apiVersion", api_version)
    out.setdefault("kind", kind)
    return out


def collect_params(
    policy: dict[str, Any],
    binding: dict[str, Any] | None,
    request: AdmissionRequest,
    resources: list[dict[str, Any]],
    *,
    inline: Any = MISSING,
    k8s_version: str = DEFAULT_VERSION,
) -> ParamSelection:
    """CollectParams: which params this binding evaluates the policy with."""
    spec = object_at(policy, "spec")
    param_kind = spec.get("paramKind")
    if not isinstance(param_kind, dict):
        return ParamSelection(params=[None])
    if inline is not MISSING:
        return ParamSelection(params=[copy.deepcopy(inline)])
    bspec = object_at(binding, "spec")
    param_ref = bspec.get("paramRef")
    if not isinstance(param_ref, dict):
        return ParamSelection(params=[None])
    api_version = str(param_kind.get("apiVersion") or "")
    kind = str(param_kind.get("kind") or "")
    known, namespaced = _param_scope(api_version, kind, resources, k8s_version)
    if not known:
        return ParamSelection(error=f"paramKind kind `{_gvk_text(api_version, kind)}` not known")
    ref_namespace = str(param_ref.get("namespace") or "")
    lookup_namespace: str | None = None
    if namespaced:
        lookup_namespace = ref_namespace or request.namespace
        if not lookup_namespace:
            return ParamSelection(
                error="cannot use namespaced paramRef in policy binding that matches "
                "cluster-scoped resources"
            )
    elif ref_namespace:
        if namespaced is False:
            return ParamSelection(
                error="paramRef.namespace must not be provided for a cluster-scoped `paramKind`"
            )
        lookup_namespace = ref_namespace

    def in_scope(obj: dict[str, Any]) -> bool:
        if lookup_namespace is None:
            return True
        return str(_meta(obj).get("namespace") or "") == lookup_namespace

    pool = [o for o in _candidates(api_version, kind, resources) if in_scope(o)]
    name = str(param_ref.get("name") or "")
    selector = param_ref.get("selector")
    if name:
        if selector is not None:
            return ParamSelection(
                error="paramRef.name and paramRef.selector are mutually exclusive"
            )
        found = [o for o in pool if _meta(o).get("name") == name]
        params = found[:1]
    elif selector is not None:
        requirements, problem = selectors.parse_selector(selector)
        if requirements is None:
            return ParamSelection(error=problem)
        params = [
            o for o in pool if selectors.selector_matches(requirements, _meta(o).get("labels"))
        ]
    else:
        return ParamSelection(error="one of name or selector must be provided")
    action = param_ref.get("parameterNotFoundAction")
    if not params:
        if action == "Deny":
            return ParamSelection(
                error="no params found for policy binding with `Deny` parameterNotFoundAction"
            )
        where = f" in namespace {lookup_namespace!r}" if lookup_namespace else ""
        target = f"named {name!r}" if name else "matching the selector"
        return ParamSelection(
            note=f"no {kind} {target}{where}; parameterNotFoundAction "
            f"{action or 'Allow'} admits the request"
        )
    return ParamSelection(params=[_with_type_meta(p, api_version, kind) for p in params])
