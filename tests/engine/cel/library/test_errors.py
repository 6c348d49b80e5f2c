"""Library errors: Kubernetes wording, status prefixes, and no escaping Python exceptions."""

from __future__ import annotations

import pytest

from policyeditor.engine.cel.library import dispatch, errors
from policyeditor.engine.cel.library.decls import Spec
from policyeditor.engine.cel.runtime.state import CURRENT, EvalState
from tests.engine.cel.library.helpers import eval_error


def test_strip_status_removes_only_an_engine_status_prefix() -> None:
    assert errors.strip_status("UNKNOWN: min called on empty list") == "min called on empty list"
    assert errors.strip_status("OUT_OF_RANGE: x") == "x"
    assert errors.strip_status("Illegal regex: bad") == "Illegal regex: bad"


def test_guarded_turns_unexpected_exceptions_into_library_errors() -> None:
    boom = errors.guarded(lambda value: value["missing"])
    with pytest.raises(errors.LibraryError, match="no such overload"):
        boom({})
    passthrough = errors.guarded(lambda: (_ for _ in ()).throw(errors.LibraryError("kept")))
    with pytest.raises(errors.LibraryError, match="^kept$"):
        passthrough()


def test_guarded_lets_a_memory_error_through_and_marks_the_evaluation() -> None:
    def exhausted() -> None:
        raise MemoryError

    state = EvalState(limit=100)
    token = CURRENT.set(state)
    try:
        with pytest.raises(MemoryError):
            errors.guarded(exhausted)()  # not "no such overload": the evaluation is stopped
    finally:
        CURRENT.reset(token)
    assert state.out_of_memory


def test_library_errors_surface_as_runtime_errors_with_their_text() -> None:
    error = eval_error("object.l.min()", ("kubernetes.lists",), {"object": {"l": []}})
    assert error.phase == "runtime"
    assert str(error) == "min called on empty list"


def test_a_mistyped_dynamic_argument_is_an_error_value_not_a_crash() -> None:
    error = eval_error("object.l.isSorted()", ("kubernetes.lists",), {"object": {"l": [1, "a"]}})
    assert error.phase == "runtime"


def test_slots_with_several_implementations_get_a_dispatcher() -> None:
    first = Spec("f", "f_a", ("net.IP",), "int", True, lambda m: 1)
    second = Spec("f", "f_b", ("net.CIDR",), "int", True, lambda m: 2)
    merged = dispatch.merge_slots([first, second], one_per_slot=False)
    assert [s.overload_id for s in merged] == ["f_a", "f_b"]
    assert merged[1].impl is None and merged[0].impl is not None
    only = dispatch.merge_slots([first, second], one_per_slot=True)
    assert [s.overload_id for s in only] == ["f_a"]
