"""Bad input never escapes as an exception: it comes back as issues."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from policyeditor.engine import cel

_PIECES = st.sampled_from(
    [
        "object",
        "oldObject",
        "request",
        "params",
        "variables",
        "namespaceObject",
        ".",
        ".?",
        "[",
        "]",
        "(",
        ")",
        "{",
        "}",
        ":",
        ",",
        "?",
        "&&",
        "||",
        "!",
        "==",
        "<",
        "+",
        "-",
        "*",
        "/",
        "%",
        "1",
        "1.5",
        "2u",
        "'a'",
        '"b"',
        "b'c'",
        "null",
        "true",
        "size",
        "has",
        "all",
        "map",
        "exists",
        "x",
        "y",
        "Object",
        "JSONPatch",
        "spec",
        "in",
        "matches",
        "duration",
        "timestamp",
        "'1d'",
        "'('",
        "format",
        "'%e'",
        "[1, 'a']",
        "optional.of",
        "transformMap",
        "k",
        "v",
        "quantity",
        "ip",
        "cidr",
        "semver",
        "url",
        "find",
        "\n",
        " ",
    ]
)
EXPRESSIONS = st.lists(_PIECES, min_size=1, max_size=14).map("".join) | st.text(max_size=40)


@settings(max_examples=300, deadline=None)
@given(EXPRESSIONS, st.sampled_from(list(cel.Context)), st.booleans())
def test_any_text_compiles_or_yields_issues(expr, context, mutating):
    result = cel.compile_expression(
        expr,
        context=context,
        version="1.37",
        declarations=cel.Declarations(has_params=True, variables=("x",), mutating=mutating),
    )
    assert result.ok or result.errors
    if result.ok:
        evaluated = result.program.evaluate(cel.Activation(object={"spec": {"a": 1}}))
        assert evaluated.error is None or evaluated.error.message
