"""kubernetes.lists: isSorted, sum, min, max, indexOf, lastIndexOf and includes."""

from __future__ import annotations

import datetime

import pytest

from policyeditor.engine.cel.library import lists
from policyeditor.engine.cel.library.errors import LibraryError
from tests.engine.cel.library.helpers import EvalError, eval_error, evaluate

LISTS = ("kubernetes.lists",)


def test_sum_keeps_the_element_type() -> None:
    assert evaluate("[1, 2, 3].sum()", LISTS) == 6
    assert evaluate("[1.5, 2.0].sum()", LISTS) == 3.5
    assert evaluate("[duration('1s'), duration('2s')].sum() == duration('3s')", LISTS) is True


def test_sum_overflow_is_an_integer_overflow_error() -> None:
    with pytest.raises(EvalError, match="integer overflow"):
        evaluate("[9223372036854775807, 1].sum()", LISTS)


def test_sum_of_strings_does_not_type_check() -> None:
    error = eval_error("['a', 'b'].sum()", LISTS)
    assert error.phase == "compile"
    assert "found no matching overload for 'sum'" in str(error)


def test_min_and_max_compare_in_cel_order() -> None:
    assert evaluate("[3, 1, 2].min()", LISTS) == 1
    assert evaluate("['b', 'c', 'a'].max()", LISTS) == "c"
    assert (
        evaluate(
            "[timestamp('2020-01-01T00:00:00Z'), timestamp('2019-01-01T00:00:00Z')]"
            ".min() == timestamp('2019-01-01T00:00:00Z')",
            LISTS,
        )
        is True
    )


def test_min_of_an_empty_list_is_the_kubernetes_error() -> None:
    with pytest.raises(LibraryError, match="min called on empty list"):
        lists.list_min([])
    with pytest.raises(LibraryError, match="max called on empty list"):
        lists.list_max([])


def test_is_sorted_allows_equal_neighbours() -> None:
    assert lists.is_sorted([1, 1, 2])
    assert not lists.is_sorted([2, 1])
    assert lists.is_sorted([])
    assert evaluate("[b'a', b'b'].isSorted()", LISTS) is True


def test_strings_sort_by_utf8_bytes_as_in_go() -> None:
    assert lists.is_sorted(["Z", "a", "é"])
    assert not lists.is_sorted(["é", "a"])


def test_index_of_uses_cel_equality_not_python_equality() -> None:
    assert lists.index_of([True, 1], 1) == 1  # true != 1 in CEL
    assert lists.index_of([1.0, 2], 1) == 0  # 1 == 1.0 in CEL
    assert lists.index_of([{"a": [1]}], {"a": [1]}) == 0
    assert lists.last_index_of([1, 2, 1], 1) == 2
    assert lists.last_index_of([1], 5) == -1


def test_index_of_works_alongside_the_strings_extension() -> None:
    assert evaluate("[[1], [2]].indexOf([2])", LISTS) == 1
    assert evaluate("'banana'.lastIndexOf('a')", LISTS) == 5


def test_includes_is_membership_for_lists_and_equality_otherwise() -> None:
    assert evaluate("[1, 2].includes(2)", LISTS) is True
    assert evaluate("[1, 2].includes(3)", LISTS) is False
    assert evaluate("'a'.includes('a')", LISTS) is True


def test_sum_of_durations_overflows_like_go() -> None:
    big = datetime.timedelta(days=106751)
    with pytest.raises(LibraryError, match="integer overflow"):
        lists.list_sum([big, big])
