"""kubernetes.regex: find/findAll with Go regexp semantics and error texts."""

from __future__ import annotations

import pytest

from policyeditor.engine.cel.library import regex
from policyeditor.engine.cel.library.errors import LibraryError
from tests.engine.cel.library.helpers import eval_error, evaluate

REGEX = ("kubernetes.regex",)


def test_find_returns_the_leftmost_first_match() -> None:
    assert regex.find("abc 123 456", "[0-9]+") == "123"
    assert regex.find("ab", "a|ab") == "a"  # leftmost-first, not leftmost-longest
    assert regex.find("xyz", "[0-9]") == ""


def test_find_all_limit_follows_go_find_all_string() -> None:
    assert regex.find_all("a1b2c3", "[0-9]") == ["1", "2", "3"]
    assert regex.find_all("a1b2c3", "[0-9]", 2) == ["1", "2"]
    assert regex.find_all("a1b2c3", "[0-9]", 0) == []
    assert regex.find_all("a1b2c3", "[0-9]", -5) == ["1", "2", "3"]


def test_find_all_skips_an_empty_match_right_after_a_match() -> None:
    assert regex.find_all("baaa", "a*") == ["", "aaa"]
    assert regex.find_all("abc", "") == ["", "", "", ""]


def test_matching_works_on_unicode_text() -> None:
    assert regex.find_all("héllo wörld", "[^ ]+") == ["héllo", "wörld"]


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        (")", "error parsing regexp: unexpected ): `)`"),
        ("(", "error parsing regexp: missing closing ): `(`"),
        ("[a", "error parsing regexp: missing closing ]: `[a`"),
        ("a**", "error parsing regexp: invalid nested repetition operator: `**`"),
        ("x{2000}", "error parsing regexp: invalid repeat count: `{2000}`"),
        ("(?<=a)b", "error parsing regexp: invalid or unsupported Perl syntax: `(?<=`"),
    ],
)
def test_invalid_patterns_read_as_go_errors(pattern: str, message: str) -> None:
    assert regex.regex_error(pattern) == message


def test_backreferences_are_rejected_as_in_re2() -> None:
    assert regex.regex_error(r"(a)\1") is not None


def test_a_dynamic_invalid_regex_is_an_illegal_regex_runtime_error() -> None:
    with pytest.raises(LibraryError, match=r"^Illegal regex: error parsing regexp: unexpected \)"):
        regex.find("x", ")")
    error = eval_error("'x'.find(object.p)", REGEX, {"object": {"p": "("}})
    assert error.phase == "runtime"
    assert "Illegal regex: error parsing regexp: missing closing )" in str(error)


def test_find_all_through_cel_returns_a_list_of_strings() -> None:
    assert evaluate("'k1=v1,k2=v2'.findAll('k[0-9]')", REGEX) == ["k1", "k2"]
    assert evaluate("'k1=v1,k2=v2'.findAll('k[0-9]', 1)", REGEX) == ["k1"]
