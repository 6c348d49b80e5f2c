"""Which libraries each Kubernetes version enables, and how they turn into declarations."""

from __future__ import annotations

import pytest

from policyeditor.engine.cel import library
from tests.engine.cel.library.helpers import eval_error, evaluate


def _names(minor: int, **kwargs: object) -> set[str]:
    return {lib.name for lib in library.libraries_for(minor, **kwargs)}


def test_new_expressions_use_the_previous_minor_as_compatibility_version() -> None:
    assert "kubernetes.Semver" not in _names(33)
    assert "kubernetes.Semver" in _names(34)


def test_compatibility_127_has_no_quantity_but_130_has() -> None:
    assert "kubernetes.quantity" not in _names(28, compatibility_minor=27)
    assert "kubernetes.quantity" in _names(31, compatibility_minor=30)


def test_stored_expressions_get_every_library_whatever_the_version() -> None:
    stored = _names(2, env_type=library.STORED_EXPRESSIONS)
    assert {"kubernetes.quantity", "kubernetes.Semver", "kubernetes.format"} <= stored


def test_env_type_accepts_an_enum_with_a_value() -> None:
    class EnvType:
        value = "StoredExpressions"

    assert "kubernetes.Semver" in _names(30, env_type=EnvType())


def test_lists_version_1_replaces_version_0_from_137() -> None:
    def lists(minor: int) -> int:
        (lib,) = [x for x in library.libraries_for(minor) if x.name == "kubernetes.lists"]
        return lib.version

    assert lists(37) == 0
    assert lists(38) == 1
    assert "includes" in library.library("kubernetes.lists", 1).functions
    assert "includes" not in library.library("kubernetes.lists", 0).functions


def test_jsonpatch_only_in_mutating_environments() -> None:
    assert "kubernetes.jsonpatch" not in _names(37)
    assert "kubernetes.jsonpatch" in _names(37, mutating=True)


@pytest.mark.parametrize(
    ("function", "introduced"),
    [("isSemver", 33), ("isQuantity", 28), ("cidr", 30), ("format.named", 31), ("includes", 37)],
)
def test_function_introduced_gives_the_library_version(function: str, introduced: int) -> None:
    assert library.function_introduced()[function] == introduced
    assert library.required_version(function) == f"1.{introduced}"


def test_base_functions_have_no_required_version() -> None:
    assert library.required_version("indexOf") is None
    assert library.required_version("find") is None


def test_unknown_library_name_is_a_key_error() -> None:
    with pytest.raises(KeyError):
        library.library("kubernetes.nope")


def test_a_function_is_undeclared_when_its_library_is_absent() -> None:
    error = eval_error('isSemver("1.0.0")', ("kubernetes.quantity",))
    assert error.phase == "compile"
    assert "undeclared reference to 'isSemver'" in str(error)


def test_all_libraries_declare_together_without_clashes() -> None:
    libs = library.libraries_for(37, env_type=library.STORED_EXPRESSIONS, mutating=True)
    decls = library.env_declarations(libs)
    names = {lib.name for lib in libs}
    assert evaluate('isQuantity("1") && isSemver("1.0.0") && isIP("::1")', tuple(names))
    assert decls.functions and decls.extension_functions


def test_overloads_sharing_a_runtime_slot_dispatch_to_their_own_library() -> None:
    names = ("kubernetes.quantity", "kubernetes.Semver")
    assert evaluate('quantity("2").isGreaterThan(quantity("1"))', names) is True
    assert evaluate('semver("1.0.0").isGreaterThan(semver("2.0.0"))', names) is False
    assert evaluate('semver("1.0.0").compareTo(semver("1.0.0"))', names) == 0
