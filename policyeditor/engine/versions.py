"""The Kubernetes versions we target, and which API versions each one serves."""

from __future__ import annotations

import functools
import re

from policyeditor.engine.objects import family

KUBERNETES_VERSIONS: tuple[str, ...] = (
    "1.30",
    "1.31",
    "1.32",
    "1.33",
    "1.34",
    "1.35",
    "1.36",
    "1.37",
)
DEFAULT_VERSION = KUBERNETES_VERSIONS[-1]

# First minor version in which each API version of each kind family is served (kubernetes/
# kubernetes staging/src/k8s.io/api/admissionregistration/*/zz_generated.prerelease-lifecycle.go,
# APILifecycleIntroduced).
# VAP v1alpha1 and v1beta1 are still listed by the docs as served (behind runtime-config) in 1.30+;
# their removal targets (1.32 / 1.34) are targets, so we keep serving them across our range.
_API_VERSIONS: dict[str, tuple[tuple[str, int, int | None], ...]] = {
    "validating": (("v1alpha1", 26, None), ("v1beta1", 28, None), ("v1", 30, None)),
    "mutating": (("v1alpha1", 32, None), ("v1beta1", 34, None), ("v1", 36, None)),
}


_NUMBER = re.compile(r"[0-9]{1,6}")


def parse_version(version: str) -> tuple[int, int]:
    """Turn "1.34" (or "v1.34", "1.34.2") into (1, 34); ValueError if it is not a version."""
    text = version.strip().lstrip("v")
    parts = text.split(".")
    # ASCII digits only: str.isdigit() also accepts superscripts, which int() refuses.
    if len(parts) < 2 or not all(_NUMBER.fullmatch(part) for part in parts[:2]):
        raise ValueError(f"not a Kubernetes version: {version!r} (expected e.g. 1.34)")
    return int(parts[0]), int(parts[1])


def normalize_version(version: str | None) -> str:
    """Return the canonical "1.NN" form of a supported version, the default for None."""
    if version is None or version == "":
        return DEFAULT_VERSION
    if type(version) is str:
        return _normalized(version)  # every evaluation asks: remembered per text
    return _normalized(str(version))


@functools.lru_cache(maxsize=256)
def _normalized(version: str) -> str:
    major, minor = parse_version(version)
    canonical = f"{major}.{minor}"
    if canonical not in KUBERNETES_VERSIONS:
        supported = ", ".join(KUBERNETES_VERSIONS)
        raise ValueError(f"Kubernetes {canonical} is not supported (supported: {supported})")
    return canonical


def minor(version: str) -> int:
    """The minor number of a version string."""
    return parse_version(version)[1]


def served_api_versions(kind: str, version: str) -> list[str]:
    """The admissionregistration API versions that serve `kind` in Kubernetes `version`."""
    if type(kind) is str and type(version) is str:
        return list(_served(kind, version))  # asked per document on every evaluation
    return _served_uncached(kind, version)


@functools.lru_cache(maxsize=256)
def _served(kind: str, version: str) -> tuple[str, ...]:
    return tuple(_served_uncached(kind, version))


def _served_uncached(kind: str, version: str) -> list[str]:
    fam = family(kind)
    if fam is None:
        return []
    m = minor(version)
    return [
        api
        for api, since, until in _API_VERSIONS[fam]
        if since <= m and (until is None or m < until)
    ]


def introduced_in(kind: str, api_version: str) -> str | None:
    """The Kubernetes version that first serves kind at api_version ("1.32"), or None."""
    fam = family(kind)
    if fam is None:
        return None
    for api, since, _until in _API_VERSIONS[fam]:
        if api == api_version:
            return f"1.{since}"
    return None


def preferred_api_version(kind: str, version: str) -> str | None:
    """The most stable API version serving `kind` in `version` (v1 over v1beta1 over v1alpha1)."""
    served = served_api_versions(kind, version)
    return served[-1] if served else None
