"""Each versioned function is undeclared one version before it appears, with a hint."""

from __future__ import annotations

import pytest

from policyeditor.engine import cel

STORED = cel.EnvType.STORED_EXPRESSIONS
NEW = cel.EnvType.NEW_EXPRESSIONS

# (expression, first minor whose binary has it, name in the hint)
CASES = [
    ("isIP('1.2.3.4')", 30, "isIP"),
    ("cidr('10.0.0.0/8').prefixLength() == 8", 30, "cidr"),
    ("format.dns1123Label().validate('a').hasValue()", 31, "format.dns1123Label"),
    (
        "authorizer.group('').resource('pods').fieldSelector('a=b').check('list').allowed()",
        31,
        "fieldSelector",
    ),
    ("[1, 2].exists(i, v, v > i)", 32, None),
    ("{'a': 1}.transformMap(k, v, v + 1) == {'a': 2}", 32, None),
    ("isSemver('1.0.0')", 33, "isSemver"),
    ("semver('1.2.3').major() == 1", 33, "semver"),
    ("lists.range(3) == [0, 1, 2]", 34, None),
    ("[2, 1].sort() == [1, 2]", 34, "sort"),
    ("[1, 2].includes(1)", 37, "includes"),
]


def compile_at(expr: str, minor: int, env_type) -> cel.CompileResult:
    return cel.compile_expression(
        expr, context=cel.Context.VALIDATION, version=f"1.{minor}", env_type=env_type
    )


@pytest.mark.parametrize(("expr", "minor", "name"), CASES, ids=[c[0] for c in CASES])
def test_function_appears_in_its_version_and_not_before(expr, minor, name):
    assert compile_at(expr, minor, STORED).ok
    if minor > 30:
        before = compile_at(expr, minor - 1, STORED)
        assert not before.ok
        if name is not None:
            assert f"`{name}` requires Kubernetes 1.{minor}" in before.error_text()


@pytest.mark.parametrize(("expr", "minor", "name"), CASES, ids=[c[0] for c in CASES])
def test_new_expressions_get_it_one_version_later(expr, minor, name):
    new = compile_at(expr, minor, NEW)
    assert not new.ok
    if name is not None:
        assert f"(new expressions: 1.{minor + 1})" in new.error_text()
    if minor < 37:
        assert compile_at(expr, minor + 1, NEW).ok


def test_always_present_libraries_compile_in_the_oldest_version():
    for expr in [
        "[1, 2].isSorted()",
        "'a1'.find('[0-9]') == '1'",
        "isURL('https://a')",
        "quantity('1Gi').isInteger()",
    ]:
        assert compile_at(expr, 30, NEW).ok, expr
