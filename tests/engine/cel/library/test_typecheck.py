"""Generic overloads (list(A).indexOf(A)) are checked as cel-go checks them."""

from __future__ import annotations

import pytest

from policyeditor.engine.cel.library import formats_decls, typecheck
from policyeditor.engine.cel.syntax import ast_pb
from tests.engine.cel.library.helpers import env_for

LISTS = ("kubernetes.lists",)


def _findings(expr: str) -> list[str]:
    env = env_for(LISTS, ("object",))
    compiled = env.compile(formats_decls.rewrite_source(expr))
    checked = ast_pb.checked_from_bytes(compiled.serialize())
    return [message for _, message in typecheck.generic_findings(checked)]


def test_an_element_of_another_type_is_rejected() -> None:
    assert _findings("[1, 2].indexOf('a')") == [
        "found no matching overload for 'indexOf' applied to 'list(int).(string)'"
    ]
    assert _findings("[[1]].lastIndexOf(['a'])") == [
        "found no matching overload for 'lastIndexOf' applied to 'list(list(int)).(list(string))'"
    ]


@pytest.mark.parametrize(
    "expr",
    [
        "[1, 2].indexOf(2)",
        "[[1], [2]].indexOf([1])",
        "[{'a': 1}].lastIndexOf({'a': 1})",
        "object.items.indexOf('a')",
        "[1].indexOf(object.x)",
        "'abc'.indexOf('b')",
        "[].indexOf(1)",
    ],
)
def test_unifiable_arguments_pass(expr: str) -> None:
    assert _findings(expr) == []
