"""API-server validation of VAP, VAPB, MAP and MAPB documents for a chosen Kubernetes version.

The steps follow kube-apiserver's create/update path: the API version must be served by the
chosen version; the body is strictly decoded (`validation.schema`: wrong types stop here, as a
failed decode does, unknown fields are reported like strict field validation does); defaults
are applied (`defaulting`, skipped with default=False as the conformance vectors and the Go unit
tests do); then validation.go's rules run (`validation.policy`, `validation.rules`) including
CEL compilation of every expression in its own context (`validation.cel`). With `old`, update
validation applies: StoredExpressions for unchanged expressions, and match conditions skipped
when neither paramKind nor matchConditions changed.

Wording is the newest release's throughout (e.g. `must be a valid CEL identifier`, JSON-rendered
list values, `spec.matchResources` spelled right), whatever the chosen version.

Bad input never raises: every problem is a FieldError.
"""

from __future__ import annotations

from typing import Any

from policyeditor.engine.apimachinery import (
    child,
    duplicate,
    go_quote,
    internal,
    invalid,
    not_supported,
    required,
    validate_object_meta,
)
from policyeditor.engine.defaulting.admissionregistration import default_in_place
from policyeditor.engine.errors import FieldError
from policyeditor.engine.objects import (
    ADMISSION_GROUP,
    ADMISSION_KINDS,
    MUTATING_KINDS,
    POLICY_KINDS,
    family,
)
from policyeditor.engine.validation.cel import CelChecker, Preexisting, preexisting_expressions
from policyeditor.engine.validation.mutating import validate_map_spec
from policyeditor.engine.validation.policy import validate_vap_spec
from policyeditor.engine.validation.rules import (
    validate_map_binding_spec,
    validate_vap_binding_spec,
)
from policyeditor.engine.validation.schema import decode
from policyeditor.engine.validation.static import feature_problems, reserved_name, static_problems
from policyeditor.engine.validation.typecheck import type_check_warnings
from policyeditor.engine.versions import (
    DEFAULT_VERSION,
    introduced_in,
    minor,
    normalize_version,
    preferred_api_version,
    served_api_versions,
)

# When each API version is deprecated and stops being served, for the deprecation warning the
# API server sends back (kubernetes/kubernetes staging/src/k8s.io/api/admissionregistration/
# {v1alpha1,v1beta1}/zz_generated.prerelease-lifecycle.go, APILifecycleDeprecated and
# APILifecycleRemoved).
_DEPRECATIONS: dict[tuple[str, str], tuple[int, int]] = {
    ("validating", "v1alpha1"): (29, 32),
    ("validating", "v1beta1"): (31, 34),
    ("mutating", "v1alpha1"): (35, 38),
    ("mutating", "v1beta1"): (37, 40),
}


def _check_type(doc: Any, version: str) -> tuple[list[FieldError], str | None, str]:
    """apiVersion and kind: errors, the kind if it is one of ours, and the API version string."""
    errors: list[FieldError] = []
    kind = doc.get("kind")
    api_version = doc.get("apiVersion")
    if kind is None or kind == "":
        errors.append(required("kind"))
        kind = None
    elif kind not in ADMISSION_KINDS:
        errors.append(not_supported("kind", kind, ADMISSION_KINDS))
        kind = None
    if api_version is None or api_version == "":
        errors.append(required("apiVersion"))
        return errors, kind, ""
    if not isinstance(api_version, str):
        errors.append(invalid("apiVersion", api_version, "must be a string"))
        return errors, kind, ""
    if kind is None:
        return errors, kind, api_version
    group, _, served_version = api_version.rpartition("/")
    served = served_api_versions(kind, version)
    if group != ADMISSION_GROUP or served_version not in served:
        choices = ", ".join(f"{ADMISSION_GROUP}/{v}" for v in served) or "none"
        detail = f'no matches for kind "{kind}" in version "{api_version}" in Kubernetes {version}'
        since = introduced_in(kind, served_version) if group == ADMISSION_GROUP else None
        if since and minor(since) > minor(version):
            detail += f" (requires Kubernetes {since})"
        errors.append(invalid("apiVersion", api_version, f"{detail}; served: {choices}"))
    return errors, kind, api_version


def _spec_errors(
    kind: str,
    value: dict[str, Any],
    version: str,
    old_value: dict[str, Any] | None,
    type_check: bool = False,
) -> tuple[list[FieldError], list[FieldError]]:
    """Metadata and spec validation of a decoded (and maybe defaulted) object; also warnings."""
    meta = value.get("metadata") or {}
    errors = validate_object_meta(meta)
    # No metadata update checks: an update is found by name, so the names always agree (and the
    # Go tests accept a renamed old object).
    spec = value.get("spec") or {}
    old_spec = (old_value or {}).get("spec") if old_value is not None else None
    mutating = kind in MUTATING_KINDS
    if kind in POLICY_KINDS:
        preexisting = (
            preexisting_expressions(old_spec, mutating) if old_value is not None else Preexisting()
        )
        checker = CelChecker(
            version, has_params="paramKind" in spec, mutating=mutating, preexisting=preexisting
        )
        skip = old_value is not None and _match_conditions_unchanged(spec, old_spec or {})
        if mutating:
            errors.extend(validate_map_spec(spec, "spec", checker, skip_match_conditions=skip))
        else:
            # With only generateName the server has made up the name before validating.
            name = meta.get("name") or (
                meta["generateName"] + "x7k2q" if meta.get("generateName") else ""
            )
            errors.extend(
                validate_vap_spec(spec, name, "spec", checker, skip_match_conditions=skip)
            )
            declarations = checker.declarations() if type_check else None
            if declarations is not None:
                checker.warnings.extend(type_check_warnings(spec, version, declarations))
        return errors, checker.warnings
    if kind == "ValidatingAdmissionPolicyBinding":
        errors.extend(validate_vap_binding_spec(spec, "spec"))
    else:
        errors.extend(validate_map_binding_spec(spec, "spec"))
    return errors, []


def _match_conditions_unchanged(spec: dict[str, Any], old_spec: dict[str, Any]) -> bool:
    """ignoreXAdmissionPolicyMatchConditions: same paramKind and same matchConditions."""
    return spec.get("paramKind") == old_spec.get("paramKind") and (
        spec.get("matchConditions") or []
    ) == (old_spec.get("matchConditions") or [])


def _deprecation(kind: str, api_version: str, version: str) -> FieldError | None:
    served_version = api_version.rpartition("/")[2]
    kind_family = family(kind)
    window = _DEPRECATIONS.get((kind_family, served_version)) if kind_family else None
    if window is None or minor(version) < window[0]:
        return None
    preferred = preferred_api_version(kind, version)
    text = f"{api_version} {kind} is deprecated in v1.{window[0]}+, unavailable in v1.{window[1]}+"
    if preferred and preferred != served_version:
        text += f"; use {ADMISSION_GROUP}/{preferred} {kind}"
    return FieldError("apiVersion", text)


def _enablement(kind: str, api_version: str, version: str) -> FieldError | None:
    """Serving a pre-GA API version takes cluster flags: say which."""
    # Feature gate as kubernetes/kubernetes staging/src/k8s.io/apiserver/pkg/features/
    # kube_features.go, defaultVersionedKubernetesFeatureGates (MutatingAdmissionPolicy).
    group, _, served_version = api_version.rpartition("/")
    if group != ADMISSION_GROUP or served_version not in served_api_versions(kind, version):
        return None
    flags = []
    if kind in MUTATING_KINDS and minor(version) < 36:
        flags.append("the MutatingAdmissionPolicy feature gate (off by default)")
    if served_version != "v1":
        # Beta APIs added after 1.24, and every alpha API, are not served by default.
        flags.append(f"--runtime-config={ADMISSION_GROUP}/{served_version}=true")
    if not flags:
        return None
    return FieldError(
        "apiVersion",
        f"{api_version} {kind} is served by Kubernetes {version} only with " + " and ".join(flags),
    )


def _validate(
    doc: Any,
    version: str,
    old: Any,
    default: bool,
    type_check: bool = False,
    static: bool = False,
) -> tuple[list[FieldError], list[FieldError]]:
    if not isinstance(doc, dict):
        return [FieldError("", f"expected an object (a mapping), got {type(doc).__name__}")], []
    try:
        version = normalize_version(version)
    except ValueError as error:
        return [FieldError("", str(error))], []
    errors, kind, api_version = _check_type(doc, version)
    if kind is None:
        return errors, []
    warnings: list[FieldError] = []
    for note in (_deprecation(kind, api_version, version), _enablement(kind, api_version, version)):
        if note is not None:
            warnings.append(note)
    decoded = decode(doc, kind, api_version, version)
    if decoded.type_errors:
        # The API server cannot decode the body, so it never gets to validate it.
        return errors + decoded.type_errors + decoded.unknown_fields, warnings
    errors.extend(decoded.unknown_fields)
    value = default_in_place(decoded.value) if default else decoded.value
    old_value = None
    if old is not None:
        if not isinstance(old, dict) or old.get("kind") != kind:
            errors.append(invalid("kind", kind, "the old object must be of the same kind"))
        else:
            old_decoded = decode(
                old, kind, str(old.get("apiVersion") or api_version), version
            ).value
            old_value = default_in_place(old_decoded) if default else old_decoded
    spec_errors, cel_warnings = _spec_errors(kind, value, version, old_value, type_check)
    if not static and old is None:
        # On create, as the registry strategies' Validate does (kubernetes/kubernetes pkg/registry/
        # admissionregistration/mutatingwebhookconfiguration/strategy.go, Validate).
        reserved_errors, reserved_warnings = reserved_name(value, version)
        errors.extend(reserved_errors)
        warnings.extend(reserved_warnings)
    return errors + spec_errors, warnings + cel_warnings


def validate_document(
    doc: dict[str, Any],
    *,
    version: str = DEFAULT_VERSION,
    old: dict[str, Any] | None = None,
    default: bool = True,
    static: bool = False,
) -> list[FieldError]:
    """API-server validation of one VAP/VAPB/MAP/MAPB document (update validation with `old`);
    `static` validates it as a static manifest would be, where the reserved suffix is required."""
    try:
        return _validate(doc, version, old, default, static=static)[0]
    except Exception as error:  # never let a validator bug escape as an exception
        return [internal("", f"validation failed unexpectedly: {error!r}")]


def warnings_for(
    doc: dict[str, Any],
    *,
    version: str = DEFAULT_VERSION,
    old: dict[str, Any] | None = None,
    static: bool = False,
) -> list[FieldError]:
    """Non-blocking findings: deprecated API versions, CEL warnings, VAP type-check warnings."""
    try:
        return _validate(doc, version, old, True, type_check=True, static=static)[1]
    except Exception:
        return []


def validate_documents(
    docs: list[dict[str, Any]],
    *,
    version: str = DEFAULT_VERSION,
    static: bool = False,
    files: list[str] | None = None,
) -> list[tuple[int, FieldError]]:
    """Validate every policy or binding in a bundle; other kinds (params, namespaces) are skipped.

    With `static`, the bundle is a set of static manifests (KEP-5793): the static loader's rules
    apply too, and `files` names the file of each document in its messages."""
    # Documents without a kind are reported; so are two objects of the same kind and name,
    # since creating the second one would fail.
    found: list[tuple[int, FieldError]] = []
    if static:
        try:
            found.extend((0, error) for error in feature_problems(version)[0])
        except ValueError as error:
            return [(0, FieldError("", str(error)))]
        found.extend(static_problems(docs, version=version, files=files))
    seen: dict[tuple[str, str], int] = {}
    for position, doc in enumerate(docs):
        kind = doc.get("kind") if isinstance(doc, dict) else None
        if isinstance(kind, str) and kind and kind not in ADMISSION_KINDS:
            continue  # another object (a param, a namespace); a kind that is no string is reported
        found.extend(
            (position, error) for error in validate_document(doc, version=version, static=static)
        )
        if isinstance(doc, dict):
            name = (
                (doc.get("metadata") or {}).get("name")
                if isinstance(doc.get("metadata"), dict)
                else None
            )
            if isinstance(name, str) and name:
                key = (str(doc.get("kind")), name)
                if key in seen:
                    found.append(
                        (
                            position,
                            FieldError(
                                child("metadata", "name"),
                                duplicate("", name).message
                                + f": document {seen[key] + 1} already defines {key[0]} {name!r}",
                            ),
                        )
                    )
                else:
                    seen[key] = position
    return found


def status_message(doc: Any, errors: list[FieldError]) -> str:
    """The API server's Status message for invalid `doc` (apierrors.NewInvalid), "" if valid."""
    # `Kind.group "name" is invalid: [e1, e2]`; a single error is not bracketed.
    if not errors:
        return ""
    kind = doc.get("kind") if isinstance(doc, dict) else None
    meta = doc.get("metadata") if isinstance(doc, dict) else None
    name = meta.get("name") if isinstance(meta, dict) else None
    qualified = (
        f"{kind}.{ADMISSION_GROUP}"
        if isinstance(kind, str) and kind in ADMISSION_KINDS
        else str(kind or "object")
    )
    rendered = [str(error) for error in errors]
    body = rendered[0] if len(rendered) == 1 else "[" + ", ".join(rendered) + "]"
    return f"{qualified} {go_quote(str(name or ''))} is invalid: {body}"
