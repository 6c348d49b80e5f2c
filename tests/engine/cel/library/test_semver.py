"""kubernetes.Semver: blang/semver strict parsing, precedence, and normalize."""

from __future__ import annotations

import pytest

from policyeditor.engine.cel.library import semver
from policyeditor.engine.cel.library.errors import LibraryError
from tests.engine.cel.library.helpers import eval_error, evaluate, library_error

SEMVER = ("kubernetes.Semver",)

# semver.org section 11 example, in increasing precedence
ORDERED = [
    "1.0.0-alpha",
    "1.0.0-alpha.1",
    "1.0.0-alpha.beta",
    "1.0.0-beta",
    "1.0.0-beta.2",
    "1.0.0-beta.11",
    "1.0.0-rc.1",
    "1.0.0",
    "1.0.1",
    "1.1.0",
    "2.0.0",
]


def test_precedence_follows_the_semver_specification() -> None:
    versions = [semver.parse(v) for v in ORDERED]
    for lower, higher in zip(versions, versions[1:], strict=False):
        assert lower.compare(higher) == -1
        assert higher.compare(lower) == 1


def test_build_metadata_is_ignored_by_comparison_and_equality() -> None:
    assert semver.parse("1.0.0+a").compare(semver.parse("1.0.0+b")) == 0
    assert evaluate("semver('1.0.0+a') == semver('1.0.0+b')", SEMVER) is True


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "Version string empty"),
        ("1", "No Major.Minor.Patch elements found"),
        ("v1.0.0", 'Invalid character(s) found in major number "v1"'),
        ("01.0.0", 'Major number must not contain leading zeroes "01"'),
        ("1.01.0", 'Minor number must not contain leading zeroes "01"'),
        ("1.0.01", 'Patch number must not contain leading zeroes "01"'),
        ("1.0.0-01", 'Numeric PreRelease version must not contain leading zeroes "01"'),
        ("1.0.0-", "Prerelease is empty"),
        ("1.0.0+", "Build meta data is empty"),
        ("1.0.0 ", 'Invalid character(s) found in patch number "0 "'),
        ("1.0.0-a_b", 'Invalid character(s) found in prerelease "a_b"'),
    ],
)
def test_strict_parse_errors_are_blangs(text: str, message: str) -> None:
    error = library_error(semver.parse, text)
    assert str(error) == message


@pytest.mark.parametrize(
    ("text", "normal"),
    [("v1.2.3", (1, 2, 3)), ("1", (1, 0, 0)), ("v01.01", (1, 1, 0)), ("1.2.03-rc.1", (1, 2, 3))],
)
def test_normalize_strips_v_and_zeros_and_pads(text: str, normal: tuple[int, int, int]) -> None:
    parsed = semver.normalize_and_parse(text)
    assert (parsed.major, parsed.minor, parsed.patch) == normal


def test_normalize_rejects_short_versions_with_metadata() -> None:
    with pytest.raises(LibraryError, match="short version cannot contain PreRelease/Build meta"):
        semver.normalize_and_parse("1.2-beta")


def test_normalize_overloads_through_cel() -> None:
    assert evaluate("isSemver('v1.0', true)", SEMVER) is True
    assert evaluate("isSemver('v1.0')", SEMVER) is False
    assert evaluate("semver('v1.2', true).minor()", SEMVER) == 2
    assert evaluate("semver('1.2.3').patch()", SEMVER) == 3


def test_a_bad_version_is_a_runtime_error() -> None:
    error = eval_error("semver(object.v).major()", SEMVER, {"object": {"v": "1.2"}})
    assert error.phase == "runtime"
    assert "No Major.Minor.Patch elements found" in str(error)


def test_version_1_without_normalize_is_version_0() -> None:
    from policyeditor.engine.cel.library import semver_decls

    ids = {spec.overload_id for spec in semver_decls.specs(0)}
    assert "is_semver_string_bool" not in ids
    assert "is_semver_string_bool" in {spec.overload_id for spec in semver_decls.specs(1)}
