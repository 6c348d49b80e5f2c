"""blang/semver v4 strict parsing and precedence, plus the Kubernetes `normalize` rules."""

from __future__ import annotations

from dataclasses import dataclass

from policyeditor.engine.cel.library.errors import LibraryError, parses

_NUMBERS = frozenset("0123456789")
_ALPHANUM = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-") | _NUMBERS
UINT64_MAX = 2**64 - 1


def _only(text: str, allowed: frozenset[str]) -> bool:
    return all(c in allowed for c in text)


def _leading_zero(text: str) -> bool:
    return len(text) > 1 and text[0] == "0"


def _parse_uint(text: str) -> int:
    # strconv.ParseUint(text, 10, 64) error texts
    if not text or not _only(text, _NUMBERS):
        raise LibraryError(f'strconv.ParseUint: parsing "{text}": invalid syntax')
    value = int(text)
    if value > UINT64_MAX:
        raise LibraryError(f'strconv.ParseUint: parsing "{text}": value out of range')
    return value


@dataclass(frozen=True)
class Version:
    """A parsed semantic version; build metadata is kept but ignored by comparisons."""

    major: int
    minor: int
    patch: int
    pre: tuple[int | str, ...] = ()
    build: tuple[str, ...] = ()

    def compare(self, other: Version) -> int:
        """Semver precedence: -1, 0 or 1 (blang Version.Compare)."""
        for a, b in (
            (self.major, other.major),
            (self.minor, other.minor),
            (self.patch, other.patch),
        ):
            if a != b:
                return -1 if a < b else 1
        if not self.pre or not other.pre:
            if self.pre == other.pre:
                return 0
            return 1 if not self.pre else -1
        for mine, theirs in zip(self.pre, other.pre, strict=False):
            result = _compare_pre(mine, theirs)
            if result:
                return result
        if len(self.pre) == len(other.pre):
            return 0
        return -1 if len(self.pre) < len(other.pre) else 1

    def pre_text(self) -> str:
        """The prerelease identifiers joined by dots."""
        return ".".join(str(p) for p in self.pre)


def _compare_pre(a: int | str, b: int | str) -> int:
    if isinstance(a, int) and isinstance(b, int):
        return (a > b) - (a < b)
    if isinstance(a, int):
        return -1  # numeric identifiers have lower precedence
    if isinstance(b, int):
        return 1
    return (a > b) - (a < b)


def _pre_version(text: str) -> int | str:
    if not text:
        raise LibraryError("Prerelease is empty")
    if _only(text, _NUMBERS):
        if _leading_zero(text):
            raise LibraryError(
                f'Numeric PreRelease version must not contain leading zeroes "{text}"'
            )
        return _parse_uint(text)
    if _only(text, _ALPHANUM):
        return text
    raise LibraryError(f'Invalid character(s) found in prerelease "{text}"')


def parse(text: str) -> Version:
    """blang semver.Parse (strict); LibraryError with blang's message."""
    if not text:
        raise LibraryError("Version string empty")
    parts = text.split(".", 2)
    if len(parts) != 3:
        raise LibraryError("No Major.Minor.Patch elements found")
    numbers = []
    for label, part in (("major", parts[0]), ("minor", parts[1])):
        if not _only(part, _NUMBERS):
            raise LibraryError(f'Invalid character(s) found in {label} number "{part}"')
        if _leading_zero(part):
            raise LibraryError(
                f'{label.capitalize()} number must not contain leading zeroes "{part}"'
            )
        numbers.append(_parse_uint(part))
    patch_text = parts[2]
    build: list[str] = []
    pre: list[str] = []
    if "+" in patch_text:
        patch_text, build_text = patch_text.split("+", 1)
        build = build_text.split(".")
    if "-" in patch_text:
        patch_text, pre_text = patch_text.split("-", 1)
        pre = pre_text.split(".")
    if not _only(patch_text, _NUMBERS):
        raise LibraryError(f'Invalid character(s) found in patch number "{patch_text}"')
    if _leading_zero(patch_text):
        raise LibraryError(f'Patch number must not contain leading zeroes "{patch_text}"')
    patch = _parse_uint(patch_text)
    pre_values = tuple(_pre_version(p) for p in pre)
    for item in build:
        if not item:
            raise LibraryError("Build meta data is empty")
        if not _only(item, _ALPHANUM):
            raise LibraryError(f'Invalid character(s) found in build meta data "{item}"')
    return Version(numbers[0], numbers[1], patch, pre_values, tuple(build))


def normalize_and_parse(text: str) -> Version:
    """Kubernetes normalizeAndParse: drop one `v`, leading zeros, pad to MAJOR.MINOR.PATCH."""
    text = text.removeprefix("v")
    parts = text.split(".", 2)
    for index, part in enumerate(parts):
        if len(part) > 1:
            stripped = part.lstrip("0")
            if not stripped or stripped[0] not in _NUMBERS:
                stripped = "0" + stripped
            parts[index] = stripped
    if len(parts) < 3:
        if any(c in parts[-1] for c in "+-"):
            raise LibraryError("short version cannot contain PreRelease/Build meta data")
        parts.extend("0" for _ in range(3 - len(parts)))
    return parse(".".join(parts))


def parse_semver(text: str, normalize: bool = False) -> Version:
    """semver(string[, normalize])."""
    return normalize_and_parse(text) if normalize else parse(text)


def is_semver(text: str, normalize: bool = False) -> bool:
    """isSemver(string[, normalize])."""
    return parses(parse_semver, text, normalize)
