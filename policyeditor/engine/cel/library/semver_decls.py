"""CEL declarations of kubernetes.Semver (version 1 adds the `normalize` overloads)."""

from __future__ import annotations

from policyeditor.engine.cel.library import semver
from policyeditor.engine.cel.library.decls import Spec, comparison_specs
from policyeditor.engine.cel.library.types import SEMVER, SemverFields, SemverMessage


def semver_message(version: semver.Version) -> object:
    """The CEL value of a version (build metadata dropped: it does not take part in equality)."""
    return SemverMessage(
        major=version.major, minor=version.minor, patch=version.patch, pre=version.pre_text()
    )


def version_of(message: SemverFields) -> semver.Version:
    """The version inside a CEL value."""
    pre_text = message.pre
    pre = tuple(int(p) if p.isdigit() else p for p in pre_text.split(".")) if pre_text else ()
    return semver.Version(message.major, message.minor, message.patch, pre)


def _semver(text: str, normalize: bool = False) -> object:
    return semver_message(semver.parse_semver(text, normalize))


def _compare(left: SemverFields, right: SemverFields) -> int:
    return version_of(left).compare(version_of(right))


def specs(version: int) -> list[Spec]:
    """All overloads of the library at `version`."""
    S = SEMVER
    out = [
        Spec("semver", "string_to_semver", ("string",), S, False, _semver),
        Spec("isSemver", "is_semver_string", ("string",), "bool", False, semver.is_semver),
        *comparison_specs("semver", S, _compare),
        Spec("major", "semver_major", (S,), "int", True, lambda m: m.major),
        Spec("minor", "semver_minor", (S,), "int", True, lambda m: m.minor),
        Spec("patch", "semver_patch", (S,), "int", True, lambda m: m.patch),
    ]
    if version >= 1:
        out += [
            Spec("semver", "string_bool_to_semver", ("string", "bool"), S, False, _semver),
            Spec(
                "isSemver",
                "is_semver_string_bool",
                ("string", "bool"),
                "bool",
                False,
                semver.is_semver,
            ),
        ]
    return out
