"""Manifest-based admission control (KEP-5793): the static loader's rules and the export layout.

The checks and their wording follow kubernetes/kubernetes staging/src/k8s.io/apiserver/pkg/
admission/plugin/policy/manifest/loader/loader.go (validatePolicyManifestConstraints,
validateBindingConstraints, ValidateBindingReferences) and staging/src/k8s.io/apiserver/pkg/
admission/plugin/manifest/validation.go (ValidateManifestName). Beyond them every document gets
the API server's own validation, as the loader defaults and validates what it decodes, and
strict decoding: unknown fields are errors here, duplicate fields are refused when the text is
read.
"""

from __future__ import annotations

import io
import zipfile
from typing import Any

from policyeditor.engine.apimachinery import invalid
from policyeditor.engine.errors import FieldError
from policyeditor.engine.manifests.dump import dump_documents
from policyeditor.engine.objects import ADMISSION_GROUP, ADMISSION_KINDS, POLICY_KINDS, family
from policyeditor.engine.versions import minor, normalize_version

STATIC_SUFFIX = ".static.k8s.io"
# ManifestBasedAdmissionControlConfig: alpha (off by default) in 1.36, beta (on) in 1.37
# (kubernetes/kubernetes staging/src/k8s.io/apiserver/pkg/features/kube_features.go).
ALPHA_MINOR = 36
BETA_MINOR = 37
DEFAULT_BASE_DIR = "/etc/kubernetes/admission"
# The plugin and configuration kind of each family (kubernetes/kubernetes staging/src/k8s.io/
# apiserver/pkg/apis/apiserver/v1/types.go; the AdmissionConfiguration example of the
# manifest-admission-control page of the Kubernetes docs).
PLUGINS = {
    "validating": (
        "ValidatingAdmissionPolicy",
        "ValidatingAdmissionPolicyConfiguration",
        "validating-policies",
    ),
    "mutating": (
        "MutatingAdmissionPolicy",
        "MutatingAdmissionPolicyConfiguration",
        "mutating-policies",
    ),
}


def _name(doc: dict[str, Any]) -> str:
    meta = doc.get("metadata")
    name = meta.get("name") if isinstance(meta, dict) else None
    return name if isinstance(name, str) else ""


def _spec(doc: dict[str, Any]) -> dict[str, Any]:
    spec = doc.get("spec")
    return spec if isinstance(spec, dict) else {}


def _gvk(doc: dict[str, Any]) -> str:
    """A GroupVersionKind as Go prints it: `group/version, Kind=Kind`."""
    api_version = str(doc.get("apiVersion") or "")
    group, _, version = api_version.rpartition("/")
    return f"{group}/{version}, Kind={doc.get('kind') or ''}"


def feature_problems(version: str) -> tuple[list[FieldError], list[FieldError]]:
    """Errors and warnings about the target version's support of static manifests."""
    m = minor(normalize_version(version))
    if m < ALPHA_MINOR:
        return [
            FieldError(
                "",
                f"manifest-based admission control (staticManifestsDir) requires Kubernetes "
                f"1.{ALPHA_MINOR} or later (beta and on by default in 1.{BETA_MINOR}); "
                f"Kubernetes 1.{m} does not have it",
            )
        ], []
    if m < BETA_MINOR:
        return [], [
            FieldError(
                "",
                "staticManifestsDir requires the ManifestBasedAdmissionControlConfig feature gate "
                f"to be enabled (alpha, off by default in Kubernetes 1.{m})",
            )
        ]
    return [], []


def _document_problems(
    doc: dict[str, Any], file: str, seen: dict[tuple[str, bool], dict[str, str]]
) -> list[FieldError]:
    kind = doc.get("kind")
    if kind not in ADMISSION_KINDS:
        return [FieldError("kind", f"unsupported resource type {_gvk(doc)}")]
    found: list[FieldError] = []
    if doc.get("apiVersion") != f"{ADMISSION_GROUP}/v1":
        found.append(
            FieldError(
                "apiVersion",
                f"unsupported resource type {_gvk(doc)}: static manifests support only "
                f"{ADMISSION_GROUP}/v1",
            )
        )
    name = _name(doc)
    names = seen.setdefault((str(family(str(kind))), kind in POLICY_KINDS), {})
    if not name:
        found.append(FieldError("metadata.name", f"resource in file {file!r} must have a name"))
    elif not name.endswith(STATIC_SUFFIX):
        found.append(
            FieldError(
                "metadata.name",
                f'"{name}" in file "{file}" must have a name ending with "{STATIC_SUFFIX}"',
            )
        )
    elif name in names:
        found.append(
            FieldError(
                "metadata.name",
                f'duplicate name "{name}" found in file "{file}" (previously seen in "{names[name]}")',
            )
        )
    else:
        names[name] = file
    spec = _spec(doc)
    if kind in POLICY_KINDS:
        if spec.get("paramKind") is not None:
            found.append(_not_static(f'{kind} "{name}"', "spec.paramKind"))
        return found
    policy = spec.get("policyName")
    if not isinstance(policy, str) or not policy:
        found.append(
            FieldError(
                "spec.policyName", f'binding "{name}" must reference a policy (spec.policyName)'
            )
        )
    elif not policy.endswith(STATIC_SUFFIX):
        found.append(
            FieldError(
                "spec.policyName",
                f'binding "{name}": spec.policyName "{policy}" must end with "{STATIC_SUFFIX}"',
            )
        )
    if spec.get("paramRef") is not None:
        found.append(_not_static(f'binding "{name}"', "spec.paramRef"))
    return found


def _not_static(subject: str, path: str) -> FieldError:
    """The static loader's error for a field a static manifest may not set."""
    return FieldError(path, f"{subject}: {path} is not supported for static manifests")


def static_problems(
    docs: list[Any], *, version: str, files: list[str] | None = None
) -> list[tuple[int, FieldError]]:
    """The static loader's errors for a set of documents (one manifest directory per family)."""
    found: list[tuple[int, FieldError]] = []
    seen: dict[tuple[str, bool], dict[str, str]] = {}
    policies: dict[str, set[str]] = {}
    for position, doc in enumerate(docs):
        if not isinstance(doc, dict):
            continue
        file = files[position] if files and position < len(files) else f"document {position + 1}"
        found.extend((position, error) for error in _document_problems(doc, file, seen))
        if doc.get("kind") in POLICY_KINDS:
            policies.setdefault(str(family(str(doc["kind"]))), set()).add(_name(doc))
    for position, doc in enumerate(docs):
        if not isinstance(doc, dict) or doc.get("kind") not in ADMISSION_KINDS:
            continue
        if doc.get("kind") in POLICY_KINDS:
            continue
        policy = _spec(doc).get("policyName")
        if (
            isinstance(policy, str)
            and policy
            and policy not in policies.get(str(family(str(doc["kind"]))), set())
        ):
            found.append(
                (
                    position,
                    FieldError(
                        "spec.policyName",
                        f'binding "{_name(doc)}" references policy "{policy}" which does not '
                        "exist in the manifest directory",
                    ),
                )
            )
    return found


def reserved_name(doc: Any, version: str) -> tuple[list[FieldError], list[FieldError]]:
    """A name with the static suffix, created through the API: an error (1.37+) or a warning."""
    # kubernetes/kubernetes pkg/apis/admissionregistration/validation/static_suffix.go,
    # ValidateStaticSuffix (gate on) and WarningsForStaticSuffix (gate off).
    name = _name(doc) if isinstance(doc, dict) else ""
    if not name.endswith(STATIC_SUFFIX):
        return [], []
    m = minor(normalize_version(version))
    if m >= BETA_MINOR:
        text = (
            f'names ending with "{STATIC_SUFFIX}" are reserved for static manifest-based '
            "configurations and cannot be managed via the API"
        )
        return [invalid("metadata.name", name, text)], []
    if m >= ALPHA_MINOR:
        text = (
            f'names ending with "{STATIC_SUFFIX}" will be reserved for static manifest-based '
            "configurations when the ManifestBasedAdmissionControlConfig feature gate is enabled"
        )
        return [], [FieldError("metadata.name", text)]
    return [], []


def _file_name(name: str) -> str:
    safe = "".join(c if c.isalnum() or c in "-._" else "-" for c in name).strip("-.")
    return (safe or "manifest") + ".yaml"


def static_layout(docs: list[Any], *, base_dir: str = DEFAULT_BASE_DIR) -> dict[str, str]:
    """The files of a staticManifestsDir layout: one directory per plugin, a file per policy
    (with its bindings), and admission-configuration.yaml pointing the plugins at them."""
    base = base_dir.rstrip("/") or ""
    grouped: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for doc in docs:
        if not isinstance(doc, dict) or doc.get("kind") not in ADMISSION_KINDS:
            continue  # params and other objects have no place among static manifests
        fam = str(family(str(doc["kind"])))
        owner = (
            _name(doc)
            if doc["kind"] in POLICY_KINDS
            else str(_spec(doc).get("policyName") or _name(doc))
        )
        grouped.setdefault(fam, {}).setdefault(owner, []).append(doc)
    files: dict[str, str] = {}
    plugins = []
    for fam in ("validating", "mutating"):
        if fam not in grouped:
            continue
        plugin, config_kind, folder = PLUGINS[fam]
        for owner, owned in sorted(grouped[fam].items()):
            ordered = sorted(owned, key=lambda d: d.get("kind") not in POLICY_KINDS)
            files[f"{folder}/{_file_name(owner)}"] = dump_documents(ordered)
        plugins.append(
            {
                "name": plugin,
                "configuration": {
                    "apiVersion": "apiserver.config.k8s.io/v1",
                    "kind": config_kind,
                    "staticManifestsDir": f"{base}/{folder}/",
                },
            }
        )
    files["admission-configuration.yaml"] = dump_documents(
        [
            {
                "apiVersion": "apiserver.config.k8s.io/v1",
                "kind": "AdmissionConfiguration",
                "plugins": plugins,
            }
        ]
    )
    return files


def layout_zip(files: dict[str, str]) -> bytes:
    """A layout as a zip archive (names sorted and dates fixed: equal layouts, equal bytes)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in sorted(files):
            archive.writestr(zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)), files[name])
    return buffer.getvalue()
